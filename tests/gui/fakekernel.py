"""The fake kernel (tests/fake/fake-rfkill) as the GUI tests drive it."""
import os
import socket
import subprocess

import guitest as gt


class Fake:
    """fake-rfkill serving radios on a socket; commands on a control socket."""

    def __init__(self, logdir, radios, stock=False, v1=False):
        run = os.environ['XDG_RUNTIME_DIR']
        self.socket = os.path.join(run, 'rfkill.sock')
        self.control = os.path.join(run, 'rfkill-control.sock')
        # The applet reads radio names from this stand-in for /sys/class/rfkill.
        sysfs = os.path.join(run, 'sysfs-rfkill')
        os.environ['RFKILL_SYSFS_ROOT'] = sysfs
        args = [gt.program('RFK_FAKE_RFKILL'),
                '--listen', self.socket, '--sysfs', sysfs,
                '--control', self.control, '--no-stdin']
        if radios:
            args += ['--radios', ','.join(radios)]
        if stock:
            args.append('--stock')
        if v1:
            args.append('--v1')
        self.log = open(os.path.join(logdir, 'fake-rfkill.log'), 'w')
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True)
        line = self.proc.stdout.readline().strip()
        gt.check(line == 'ready', f'fake-rfkill did not start: {line!r}')

    def command(self, line):
        """Sends one control command; returns its reply lines."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(5)
            conn.connect(self.control)
            conn.sendall(line.encode() + b'\n')
            data = b''
            while True:
                chunk = conn.recv(4096)
                if not chunk:
                    raise gt.TestFailure(f'fake-rfkill closed on {line!r}')
                data += chunk
                lines = data.decode().splitlines()
                if data.endswith(b'\n') and lines:
                    if lines[-1] == 'ok':
                        return lines[:-1]
                    if lines[-1].startswith('error: '):
                        raise gt.TestFailure(f'fake-rfkill {line!r}: {lines[-1]}')

    def batch(self, lines):
        """Sends many commands in one write, as fast as the fake reads them."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(10)
            conn.connect(self.control)
            conn.sendall(''.join(line + '\n' for line in lines).encode())
            data = b''
            while data.count(b'ok\n') + data.count(b'error: ') < len(lines):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            gt.check(b'error: ' not in data, f'fake-rfkill batch: {data[-200:]!r}')

    def state(self):
        radios = []
        for line in self.command('list'):
            idx, rtype, name, soft, hard, reasons = line.split()
            radios.append(dict(idx=int(idx), type=rtype, name=name,
                               soft=soft == '1', hard=hard == '1',
                               reasons=int(reasons)))
        return radios

    def radio(self, name):
        found = [r for r in self.state() if r['name'] == name]
        gt.check(found, f'no fake radio {name}: {self.state()}')
        return found[0]

    def set_hard(self, name, on, reasons='signal'):
        self.command(f'hard {self.radio(name)["idx"]} {"on" if on else "off"} {reasons}')

    def set_hard_all(self, on):
        """The wireless switch: one flip hard-blocks every radio."""
        self.command(f'switch {"on" if on else "off"}')

    def add(self, rtype, name):
        return int(self.command(f'add {rtype} {name}')[0])

    def remove(self, name):
        self.command(f'del {self.radio(name)["idx"]}')

    def indicator(self):
        return self.command('indicator')[0]

    def writes(self):
        return int(self.command('writes')[0])

    def stop(self):
        gt.end_process(self.proc)
        self.proc.stdout.close()
        self.log.close()
