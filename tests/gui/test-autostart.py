"""Start at login: the installed system autostart entry starts the applet
(systemd's XDG autostart generator, which systemd --user sessions and KDE
Plasma rely on, turns it into a unit) and the menu shows it on; unchecking
writes the per-user override with Hidden=true, which the generator honours
(no unit); checking again removes it and the unit is back.  The menu
follows the file."""
import configparser
import os
import shutil
import subprocess
import tempfile

import guitest as gt
from guitest import check, log, wait_for

GENERATOR = '/usr/lib/systemd/user-generators/systemd-xdg-autostart-generator'


def generated_unit(config_dirs):
    """The unit systemd's generator makes for our entry with the session's
    XDG_CONFIG_HOME (where the override goes) and config_dirs as
    XDG_CONFIG_DIRS, or None.  Exec= must be on PATH for a unit."""
    with tempfile.TemporaryDirectory() as tmp:
        bindir = os.path.join(tmp, 'bin')
        units = os.path.join(tmp, 'units')
        os.makedirs(bindir)
        os.makedirs(units)
        os.symlink(gt.program('RFK_APPLET'), os.path.join(bindir, 'rfkill-applet'))
        env = dict(os.environ, PATH=bindir + ':' + os.environ['PATH'],
                   XDG_CONFIG_DIRS=config_dirs, SYSTEMD_LOG_LEVEL='debug')
        run = subprocess.run([GENERATOR, units, units, units], env=env,
                             capture_output=True, text=True)
        # Any unit that runs the applet: the unit's name follows the
        # entry's file name, which is what the override must match.
        for name in sorted(os.listdir(units)):
            if name.endswith('@autostart.service'):
                with open(os.path.join(units, name)) as f:
                    text = f.read()
                if 'rfkill-applet' in text:
                    return text
        log('generator:', (run.stdout + run.stderr).strip()[-1500:])
        return None


def test(logdir):
    check(os.access(GENERATOR, os.X_OK), f'{GENERATOR} is missing: install systemd')
    # The entry as installed to /etc/xdg/autostart, in a private
    # XDG_CONFIG_DIRS.
    system_dir = os.path.join(os.environ['HOME'], 'xdg')
    os.makedirs(os.path.join(system_dir, 'autostart'))
    installed = gt.program_file('RFK_AUTOSTART_FILE')
    shutil.copy(installed, os.path.join(system_dir, 'autostart',
                                        os.path.basename(installed)))
    override = os.path.join(os.environ['XDG_CONFIG_HOME'], 'autostart',
                            gt.APP_ID + '.desktop')

    unit = generated_unit(system_dir)
    check(unit is not None and 'rfkill-applet' in unit,
          f'the system autostart entry makes a unit running the applet: {unit}')
    with gt.Session(logdir, ['wlan'], watcher=True) as s:
        bus, watcher = s.bus, s.watcher
        applet = s.start_applet(extra_env={'XDG_CONFIG_DIRS': system_dir})
        item = watcher.wait_item(applet.unique_name(bus))
        start = wait_for(lambda: item.find('Start at login'), 10, 'the item')
        check(start.toggle_type == 'checkmark' and start.checked,
              f'on by default (the system autostart entry, no override): {start}')
        check(not os.path.exists(override), 'an override before any click')

        item.click('Start at login')
        wait_for(lambda: os.path.exists(override), 5, f'{override} written')
        entry = configparser.ConfigParser(interpolation=None)
        entry.read(override)
        check(entry['Desktop Entry'].get('Hidden') == 'true',
              f'Hidden=true in {dict(entry["Desktop Entry"])}')
        valid = subprocess.run(['desktop-file-validate', override],
                               capture_output=True, text=True)
        check(valid.returncode == 0, f'override invalid: {valid.stdout}{valid.stderr}')
        wait_for(lambda: not item.find('Start at login').checked, 5, 'unchecked')
        unit = generated_unit(system_dir)
        check(unit is None, f'the generator still starts the applet despite Hidden=true: {unit}')

        item.click('Start at login')
        wait_for(lambda: not os.path.exists(override), 5, f'{override} removed')
        wait_for(lambda: item.find('Start at login').checked, 5, 'checked again')
        check(generated_unit(system_dir) is not None,
              'no unit from the system entry once the override is gone')


if __name__ == '__main__':
    gt.run(test)
