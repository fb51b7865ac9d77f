"""A notification daemon that never answers leaves the menu working.

Scenario: org.freedesktop.Notifications is owned by a daemon (here, in
the test process) that accepts Notify calls and never replies, as a hung
daemon does.  The hardware switch flips, so the applet notifies; right
after, the user clicks a radio in the menu, and the click takes effect
at once instead of after the D-Bus call's timeout (25 s for a
synchronous libnotify call).
"""
import guitest as gt
from guitest import log, wait_for


class HungDaemon:
    """Takes every call and answers none of them."""

    def __init__(self, bus):
        self.calls = []
        gt.serve_notifications(bus, self._on_call)

    def _on_call(self, conn, sender, path, iface, method, params, invocation):
        self.calls.append((method, invocation))  # kept, never answered


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True) as s:
        bus, watcher, fake = s.bus, s.watcher, s.fake
        daemon = HungDaemon(bus)
        applet = s.start_applet()
        item = watcher.wait_item(applet.unique_name(bus))
        wait_for(lambda: item.find('Wi-Fi (phy0)').enabled, 10, 'radios ready')

        fake.set_hard_all(True)
        # libnotify asks GetCapabilities first; we call Notify directly.
        wait_for(lambda: daemon.calls, 5, 'a call to the hung daemon')
        fake.set_hard_all(False)
        # The menu still answers, and a click still switches the radio.
        wait_for(lambda: item.find('Wi-Fi (phy0)').enabled, 5,
                 'the menu after the switch')
        item.click('Wi-Fi (phy0)')
        wait_for(lambda: fake.radio('phy0')['soft'], 5,
                 'phy0 blocked by a click while Notify hangs')
        log('menu answered with', len(daemon.calls), 'calls unanswered')


if __name__ == '__main__':
    gt.run(test)
