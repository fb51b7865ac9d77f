"""GSettings as the applet's preferences, changed from outside (gsettings,
a settings app) while it runs: the airplane radio types decide what
airplane mode switches, and the notifications key moves the menu item.
Without the schema the applet says so and exits."""
import os
import subprocess

import guitest as gt
from guitest import check, wait_for


def gsettings(*args):
    return subprocess.run(['gsettings'] + list(args), capture_output=True,
                          text=True, check=True).stdout.strip()


def schema_missing(logdir, fake):
    """Not installed and no GSETTINGS_SCHEMA_DIR: a clear error, exit 1."""
    empty = os.path.join(os.environ['XDG_RUNTIME_DIR'], 'no-schemas')
    os.makedirs(empty)
    applet = gt.Applet(fake.socket, logdir, name='applet-no-schema', extra_env={
        'GSETTINGS_SCHEMA_DIR': empty, 'XDG_DATA_DIRS': empty})
    code = applet.proc.wait(10 * gt.TIMEOUT_SCALE)
    out = applet.output()
    applet.stop()
    check(code == 1, f'exit status {code} without the schema: {out}')
    check(f'GSettings schema {gt.APP_ID} is not installed' in out, f'message: {out!r}')


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True) as s:
        bus, watcher, fake = s.bus, s.watcher, s.fake
        schema_missing(logdir, fake)
        applet = s.start_applet()
        item = watcher.wait_item(applet.unique_name(bus))
        wait_for(lambda: item.find('Airplane mode').enabled, 10, 'ready')

        # With every type counted, Wi-Fi off alone is not airplane mode...
        item.click('Wi-Fi (phy0)')
        wait_for(lambda: fake.radio('phy0')['soft'], 5, 'Wi-Fi off')
        wait_for(lambda: not item.find('Wi-Fi (phy0)').checked, 5, 'menu follows')
        check(not item.find('Airplane mode').checked,
              'Wi-Fi off alone counted as airplane mode with every type counted')
        # ...and once only Wi-Fi counts, it is (this also shows the applet
        # has seen the change, which reaches it asynchronously).
        gsettings('set', gt.APP_ID, 'airplane-radio-types', "['wlan']")
        wait_for(lambda: item.find('Airplane mode').checked, 5,
                 'airplane mode on once only Wi-Fi counts')
        item.click('Wi-Fi (phy0)')
        wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'Wi-Fi on again')
        wait_for(lambda: not item.find('Airplane mode').checked, 5, 'airplane off')

        # Airplane mode now switches Wi-Fi only; Bluetooth stays on.
        item.click('Airplane mode')
        wait_for(lambda: fake.radio('phy0')['soft'], 5, 'Wi-Fi off')
        wait_for(lambda: item.find('Airplane mode').checked, 5, 'airplane mode on')
        check(not fake.radio('hci0')['soft'], f'Bluetooth switched: {fake.state()}')
        item.click('Airplane mode')
        wait_for(lambda: not fake.radio('phy0')['soft'], 5, 'Wi-Fi back')

        # The notifications key and its menu item are one setting.
        gsettings('set', gt.APP_ID, 'notifications', 'false')
        wait_for(lambda: not item.find('Notifications').checked, 5, 'unchecked')
        item.click('Notifications')
        wait_for(lambda: gsettings('get', gt.APP_ID, 'notifications') == 'true', 5,
                 'the click stored in GSettings')


if __name__ == '__main__':
    gt.run(test)
