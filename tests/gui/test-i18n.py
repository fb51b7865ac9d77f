"""The applet speaks the user's language: German and French menus and
notifications from the built catalogs (po/), strings from the core
(radio types, block reasons) included."""
import os
import time

import guitest as gt
from guitest import check, log, wait_for
import fakekernel

EXPECT = {
    'de': dict(airplane='Flugmodus', wifi='WLAN (phy0)', bt='Bluetooth (hci0)',
               bt_hard='Bluetooth (hci0) – gesperrt: Hardware-Schalter',
               login='Bei Anmeldung starten', quit='Beenden',
               light='Flugmodus-Leuchte', rule='Dem Flugmodus folgen',
               summary='Hardware-Schalter: Funk aus',
               body='Ausgeschaltet: WLAN (phy0), Bluetooth (hci0)',
               failed='Flugmodus kann nicht ausgeschaltet werden',
               why='Funkgeräte bleiben aus: Ein Hardware-Schalter sperrt sie'),
    'fr': dict(airplane='Mode avion', wifi='Wi-Fi (phy0)', bt='Bluetooth (hci0)',
               bt_hard='Bluetooth (hci0) — bloquée : interrupteur matériel',
               login='Démarrer à la connexion', quit='Quitter',
               light='Voyant du mode avion', rule='Suivre le mode avion',
               summary='Interrupteur matériel : radios coupées',
               body='Coupées : Wi-Fi (phy0), Bluetooth (hci0)',
               failed='Impossible de désactiver le mode avion',
               why='Les radios restent coupées : un interrupteur matériel '
                   'les bloque'),
}


def one_language(logdir, bus, watcher, notifications, lang):
    want = EXPECT[lang]
    fake = fakekernel.Fake(logdir, ['wlan', 'bluetooth'])
    applet = gt.Applet(fake.socket, logdir, name=f'applet-{lang}', extra_env={
        'LANGUAGE': lang,
        'RFKILL_APPLET_LOCALEDIR': os.environ['RFK_LOCALEDIR']})
    try:
        item = watcher.wait_item(applet.unique_name(bus))
        wait_for(lambda: item.find(want['wifi']).enabled, 10,
                 f'{want["wifi"]!r} in the menu')
        for key in ('airplane', 'bt', 'login', 'quit', 'light', 'rule'):
            item.find(want[key])
        labels = [e.label for e in item.entries() if e.label]
        log(lang, 'menu:', labels)
        check(item.props()['Title'] != 'Airplane Mode', 'title not translated')

        before = len(notifications.notify_calls())
        fake.set_hard_all(True)
        wait_for(lambda: item.find(want['bt_hard']), 5,
                 f'{want["bt_hard"]!r}')
        n = wait_for(lambda: notifications.notify_calls()[before:], 5,
                     'the notification')[0]
        log(lang, 'notification:', n['summary'], '|', n['body'])
        check(n['summary'] == want['summary'], f'summary {n["summary"]!r}')
        check(n['body'] == want['body'], f'body {n["body"]!r}')
        check(n['app_name'] == want['airplane'], f'app name {n["app_name"]!r}')

        # The switch holds airplane mode: ending it from the menu fails,
        # and the failure is told in the user's language too.
        item.click(want['airplane'])
        n = wait_for(lambda: notifications.calls_with(want['failed']), 10,
                     f'{want["failed"]!r}')[0]
        log(lang, 'failure:', n['summary'], '|', n['body'])
        check(n['body'] == want['why'], f'body {n["body"]!r}')
        item.click(want['quit'])
        applet.proc.wait(10 * gt.TIMEOUT_SCALE)
    finally:
        applet.stop()
        fake.stop()
    time.sleep(0.2)


def test(logdir):
    bus = gt.session_bus()
    loop = gt.MainLoopThread()
    watcher = gt.Watcher(bus)
    notifications = gt.NotificationMock(bus, logdir)
    try:
        for lang in ('de', 'fr'):
            one_language(logdir, bus, watcher, notifications, lang)
    finally:
        notifications.stop()
        loop.stop()


if __name__ == '__main__':
    gt.run(test)
