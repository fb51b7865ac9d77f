"""A second launch (the menu's launcher, a double click) while the applet
runs: the second process exits at once and adds no icon, and the running
applet tells the user it is already running and where its icon is; a
third launch replaces that notification instead of stacking another.
With a tray there is no "no tray" notice; once the tray is gone, the
answer to a launch names the missing extension."""
import time

import guitest as gt
from guitest import check, wait_for

RUNNING = 'Airplane Mode is already running'


def launch(session, name):
    second = session.start_applet(name=name)
    code = second.proc.wait(10 * gt.TIMEOUT_SCALE)
    output = second.output()
    second.stop()
    check(code == 0, f'{name} exited with {code}: {output}')


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True,
                    notifications=True) as s:
        watcher, notifications = s.watcher, s.notifications
        applet = s.start_applet()
        watcher.wait_item(applet.unique_name(s.bus))
        # With a tray, no notice about a missing one.
        time.sleep((gt.TRAY_GRACE_S + 1) * gt.TIMEOUT_SCALE)
        check(notifications.notify_calls() == [],
              f'notified with a tray: {notifications.notify_calls()}')

        before = len(watcher.registrations())
        launch(s, 'second')
        calls = wait_for(lambda: notifications.calls_with(RUNNING),
                         5, 'the "already running" notification')
        check(len(calls) == 1, f'{calls}')
        first = calls[0]
        check(first['replaces_id'] == 0 and 'tray' in first['body']
              and first['actions'] == [], f'first answer: {first}')
        check(len(watcher.registrations()) == before,
              f'a second icon: {watcher.registrations()}')
        check(applet.proc.poll() is None, 'the first instance died')

        # Again: the same notification, replaced (the mock's first id is 1).
        launch(s, 'third')
        calls = wait_for(lambda: notifications.calls_with(RUNNING)[1:],
                         5, 'the second answer')
        check(calls[0]['replaces_id'] == 1, f'stacked instead of replaced: {calls}')

        # The tray goes away: the answer names what is missing.
        watcher.release()
        time.sleep(0.3)
        launch(s, 'fourth')
        calls = wait_for(lambda: notifications.calls_with(RUNNING)[2:],
                         5, 'the answer without a tray')
        check('gnome-shell-extension-appindicator' in calls[0]['body']
              and 'app.notice-quit' in calls[0]['actions'], f'without a tray: {calls[0]}')


if __name__ == '__main__':
    gt.run(test)
