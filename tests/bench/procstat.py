"""What a process costs, read from /proc and strace.

- memory: Rss and Pss from /proc/PID/smaps_rollup (kB);
- idle: context switches (voluntary + involuntary, every thread, from
  /proc/PID/task/TID/status) and CPU time (/proc/PID/task/TID/schedstat,
  nanoseconds on CPU) between two snapshots, with nobody tracing;
- syscalls per thread over a window, from `strace -f -p PID`, in a second
  window (ptrace itself causes context switches, so it never overlaps the
  first).  A timer is a wake-up nobody asked for: a poll that returned
  because its timeout ran out, or a timerfd that fired.
"""
import os
import re
import signal
import subprocess


def memory_kib(pid):
    values = {}
    with open(f'/proc/{pid}/smaps_rollup') as f:
        for line in f:
            key, _, rest = line.partition(':')
            if key in ('Rss', 'Pss'):
                values[key.lower()] = int(rest.split()[0])
    return values


def _task_ids(pid):
    try:
        return [int(t) for t in os.listdir(f'/proc/{pid}/task')]
    except FileNotFoundError:
        return []


def thread_name(pid, tid):
    try:
        with open(f'/proc/{pid}/task/{tid}/comm') as f:
            return f.read().strip()
    except FileNotFoundError:
        return '?'


def snapshot(pid):
    """{tid: (context switches, ns on CPU)} for every thread now."""
    tasks = {}
    for tid in _task_ids(pid):
        try:
            switches = 0
            with open(f'/proc/{pid}/task/{tid}/status') as f:
                for line in f:
                    if line.startswith(('voluntary_ctxt_switches',
                                        'nonvoluntary_ctxt_switches')):
                        switches += int(line.split()[1])
            with open(f'/proc/{pid}/task/{tid}/schedstat') as f:
                cpu_ns = int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue
        tasks[tid] = (switches, cpu_ns)
    return tasks


def idle_delta(before, after):
    """(context switches, CPU ms) between two snapshots of one process."""
    switches = cpu_ns = 0
    for tid, (sw, ns) in after.items():
        sw0, ns0 = before.get(tid, (0, 0))
        switches += sw - sw0
        cpu_ns += ns - ns0
    return switches, cpu_ns / 1e6


class Tracer:
    """strace -f on a running process until stop()."""

    def __init__(self, pid, out_path):
        self.pid, self.out_path = pid, out_path
        # Names now: a thread that exits while traced has none afterwards.
        self.names = {tid: thread_name(pid, tid) for tid in _task_ids(pid)}
        self.proc = subprocess.Popen(
            ['strace', '-f', '-qq', '-o', out_path, '-p', str(pid)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self):
        self.proc.send_signal(signal.SIGINT)  # detaches, the tracee runs on
        self.proc.wait(10)
        threads = parse_strace(self.out_path)
        for tid, entry in threads.items():
            entry['name'] = self.names.get(tid) or thread_name(self.pid, tid)
        return threads


LINE = re.compile(r'^(\d+)\s+(?:<\.\.\. )?(\w+)')
WAITS = ('poll', 'ppoll', 'epoll_wait', 'epoll_pwait', 'select', 'pselect6', 'futex',
         'restart_syscall', 'clock_nanosleep', 'nanosleep')


def _timed_out(line):
    """A wait that ended because its time was up, not because of work."""
    return line.endswith(' = 0 (Timeout)') or ' = -1 ETIMEDOUT' in line


def parse_strace(path):
    """{tid: {'syscalls': n, 'timers': n, 'exited': bool}} from `strace -f -o`.

    restart_syscall is the tracer's own doing (attaching interrupts the
    wait a thread is in) and is not counted as a syscall, but its timing
    out is a timer like any other.  A call split by another thread's line
    counts once, at its "resumed" half.  A worker thread whose idle wait
    times out once and that then exits (GLib's thread pool) has no timer:
    it is gone, nothing wakes up again.
    """
    threads = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            match = LINE.match(line)
            if not match or line.endswith(('<unfinished ...>', '<detached ...>')):
                continue
            tid, call = int(match.group(1)), match.group(2)
            entry = threads.setdefault(tid, {'syscalls': 0, 'timers': 0, 'exited': False})
            if call in WAITS and _timed_out(line):
                entry['timers'] += 1
            if call == 'timerfd_settime':
                entry['timers'] += 1
            if call in ('exit', 'exit_group'):
                entry['exited'] = True
            if call != 'restart_syscall':
                entry['syscalls'] += 1
    for entry in threads.values():
        if entry['exited'] and entry['timers'] > 0:
            entry['timers'] -= 1
    return threads
