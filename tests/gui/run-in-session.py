#!/usr/bin/python3
"""Runs one GUI test in a throw-away desktop session.

    run-in-session.py SCRIPT [ARGS...]

Order matters (see shared TESTING.md): a temporary HOME and XDG_* first,
then Xvfb on a display it picks itself (-displayfd, so tests run in
parallel), then a private session bus (dbus-run-session) that the test
script runs inside.  Everything the session started dies with it.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile


def start_xvfb(env):
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ['Xvfb', '-displayfd', str(write_fd), '-screen', '0', '640x480x24',
         '-nolisten', 'tcp', '-noreset'],
        pass_fds=[write_fd], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    display = b''
    with os.fdopen(read_fd, 'rb') as pipe:
        while not display.endswith(b'\n'):
            chunk = pipe.read(1)
            if not chunk:
                raise SystemExit('Xvfb exited before it announced a display')
            display += chunk
    return xvfb, ':' + display.decode().strip()


# Every program the GUI tests run, and the Debian package that has it.
TOOLS = {
    'Xvfb': 'xvfb', 'dbus-run-session': 'dbus', 'xfce4-panel': 'xfce4-panel',
    'xfconfd': 'xfconf', 'xdotool': 'xdotool', 'import': 'imagemagick',
    'gsettings': 'libglib2.0-bin', 'gdbus': 'libglib2.0-bin',
    'desktop-file-validate': 'desktop-file-utils',
}


def check_tools():
    path = os.environ.get('PATH', '') + ':/usr/lib/x86_64-linux-gnu/xfce4/xfconf'
    missing = sorted({pkg for tool, pkg in TOOLS.items()
                      if not shutil.which(tool, path=path)})
    if missing:
        raise SystemExit('FAIL: missing test tools: apt-get install ' + ' '.join(missing))


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    check_tools()
    root = tempfile.mkdtemp(prefix='rfk-gui-')
    env = dict(os.environ)
    env['HOME'] = root
    for var, sub in (('XDG_CONFIG_HOME', 'config'), ('XDG_DATA_HOME', 'data'),
                     ('XDG_STATE_HOME', 'state'), ('XDG_CACHE_HOME', 'cache'),
                     ('XDG_RUNTIME_DIR', 'runtime')):
        env[var] = os.path.join(root, sub)
        os.makedirs(env[var], mode=0o700)
    # Settings in a file both the applet and the test can see.
    env['GSETTINGS_BACKEND'] = 'keyfile'
    env['NO_AT_BRIDGE'] = '1'
    env['GDK_BACKEND'] = 'x11'
    env['LC_ALL'] = env.get('RFK_TEST_LC_ALL', 'C.UTF-8')
    env['LANGUAGE'] = env.get('RFK_TEST_LANGUAGE', '')
    env.pop('DBUS_SESSION_BUS_ADDRESS', None)
    # The applet tells NetworkManager about airplane mode on the system
    # bus: never the host's (a test that wants one starts its own).
    env['DBUS_SYSTEM_BUS_ADDRESS'] = 'unix:path=' + os.path.join(root, 'no-system-bus')
    env.pop('WAYLAND_DISPLAY', None)

    xvfb, display = start_xvfb(env)
    env['DISPLAY'] = display
    status = 1
    try:
        status = subprocess.call(
            ['dbus-run-session', '--', '/usr/bin/python3'] + sys.argv[1:],
            env=env)
    finally:
        xvfb.send_signal(signal.SIGTERM)
        try:
            xvfb.wait(timeout=5)
        except subprocess.TimeoutExpired:
            xvfb.kill()
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(status)


if __name__ == '__main__':
    main()
