"""Start at login: unchecking writes the per-user override with
Hidden=true, checking again removes it; the menu follows the file."""
import configparser
import os
import subprocess

import guitest as gt
from guitest import check, wait_for


def test(logdir):
    override = os.path.join(os.environ['XDG_CONFIG_HOME'], 'autostart',
                            gt.APP_ID + '.desktop')
    with gt.Session(logdir, ['wlan'], watcher=True) as s:
        bus, watcher = s.bus, s.watcher
        applet = s.start_applet()
        item = watcher.wait_item(applet.unique_name(bus))
        start = wait_for(lambda: item.find('Start at login'), 10, 'the item')
        check(start.toggle_type == 'checkmark' and start.checked,
              f'on by default (system autostart file): {start}')
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

        item.click('Start at login')
        wait_for(lambda: not os.path.exists(override), 5, f'{override} removed')
        wait_for(lambda: item.find('Start at login').checked, 5, 'checked again')


if __name__ == '__main__':
    gt.run(test)
