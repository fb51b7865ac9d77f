"""A notification daemon that never answers leaves the menu working.

Scenario: org.freedesktop.Notifications is owned by a daemon (here, in
the test process) that accepts Notify calls and never replies, as a hung
daemon does.  The hardware switch flips, so the applet notifies; right
after, the user clicks a radio in the menu, and the click takes effect
at once instead of after the D-Bus call's timeout (25 s for a
synchronous call).

The bound is in real seconds, not scaled for valgrind: from the hung
call to the click's effect takes under HANG_BOUND_S even under valgrind,
while a menu blocked on the daemon answers after 25 s at the earliest.
"""
import time

import guitest as gt
from guitest import check, log, wait_for

HANG_BOUND_S = 15  # well under the 25 s a blocking call would take


def wait_until(deadline, predicate, what):
    """wait_for, with an unscaled deadline (time.monotonic())."""
    return wait_for(predicate,
                    max(deadline - time.monotonic(), 0.1) / gt.TIMEOUT_SCALE,
                    what)


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
        # GNotification calls Notify directly (no GetCapabilities first).
        wait_for(lambda: daemon.calls, 5, 'a call to the hung daemon')
        hung = time.monotonic()
        deadline = hung + HANG_BOUND_S
        fake.set_hard_all(False)
        # The menu still answers, and a click still switches the radio.
        wait_until(deadline, lambda: item.find('Wi-Fi (phy0)').enabled,
                   'the menu after the switch')
        item.click('Wi-Fi (phy0)')
        wait_until(deadline, lambda: fake.radio('phy0')['soft'],
                   'phy0 blocked by a click while Notify hangs')
        elapsed = time.monotonic() - hung
        log(f'menu answered {elapsed:.1f} s after the hung call, with',
            len(daemon.calls), 'calls unanswered')
        check(elapsed < HANG_BOUND_S, f'{elapsed:.1f} s: the menu waited on the daemon')


if __name__ == '__main__':
    gt.run(test)
