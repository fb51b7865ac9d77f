#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""kernel/verified-kernels against the kernel suite's kernels (TAP).

  test_verified.py --kernel-src kernel/ [--kernel KVER ...]

The kernels are those the kernel suite boots and builds for (tests/vm's
kernels.py: the host's kernels and the kernel roots of
$RFKILL_KERNEL_ROOTS, e.g. sid's newest), or the --kernel ones.  Checks:

  - every one of them is listed, with the Linux release its headers carry
    (a kernel the suite tests but nobody verified fails here, naming
    kernel/README.md, the procedure that adds it);
  - every line (major.minor) on the list is one the suite tests, so no
    verified claim is left that nothing checks;
  - check-kernel, with each kernel's real headers, accepts it; with the
    same headers' release one sublevel on, or under a name not on the
    list, it refuses, naming the kernel and what to do.
"""

import argparse
import os
import subprocess
import sys
import tempfile

from vm import kernels as vmkernels


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, what, diag=""):
        self.n += 1
        self.failed += not cond
        print(f"{'ok' if cond else 'not ok'} {self.n} - {what}", flush=True)
        if not cond and diag:
            for line in diag.rstrip().splitlines():
                print("# " + line)
        return cond


def read_list(path):
    """[(kernel release, Linux release)] of verified-kernels."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 2 or fields[1].count(".") != 2:
                sys.exit(f"{path}:{number}: expected KERNEL-RELEASE LINUX-RELEASE, "
                         f"got {line.strip()!r}")
            entries.append((fields[0], fields[1]))
    return entries


def headers_release(headers):
    """MAJOR.PATCHLEVEL.SUBLEVEL of a headers tree, or None."""
    fields = {}
    try:
        with open(os.path.join(headers, "include/generated/uapi/linux/version.h"),
                  encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[0] == "#define":
                    fields[parts[1]] = parts[2]
    except OSError:
        return None
    try:
        return ".".join(fields["LINUX_VERSION_" + k]
                        for k in ("MAJOR", "PATCHLEVEL", "SUBLEVEL"))
    except KeyError:
        return None


def line_of(release):
    return ".".join(release.split(".")[:2])


def check_kernel(script, kdir, kver, listfile):
    r = subprocess.run(["sh", script, kdir, kver, listfile],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def fake_headers(tmp, release):
    """A headers tree reduced to what check-kernel reads."""
    kdir = tempfile.mkdtemp(dir=tmp)
    major, patch, sub = release.split(".")
    os.makedirs(os.path.join(kdir, "include/generated/uapi/linux"))
    with open(os.path.join(kdir, "include/generated/uapi/linux/version.h"),
              "w", encoding="utf-8") as f:
        f.write(f"#define LINUX_VERSION_MAJOR {major}\n"
                f"#define LINUX_VERSION_PATCHLEVEL {patch}\n"
                f"#define LINUX_VERSION_SUBLEVEL {sub}\n")
    return kdir


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel-src", required=True)
    ap.add_argument("--kernel", action="append",
                    help="a kernel of the suite (default: all it can boot)")
    a = ap.parse_args()

    listfile = os.path.join(a.kernel_src, "verified-kernels")
    script = os.path.join(a.kernel_src, "check-kernel")
    entries = read_list(listfile)
    listed = dict(entries)
    if a.kernel:
        suite = [vmkernels.find(k) for k in a.kernel]
    else:
        suite = vmkernels.available(vmkernels.env_roots())
    if not suite:
        print("1..0 # SKIP no kernel with vmlinuz, modules and headers")
        return 0

    t = Tap()
    suite_lines = set()
    with tempfile.TemporaryDirectory(prefix="verified-kernels-") as tmp:
        for k in suite:
            release = headers_release(k.headers)
            if not t.ok(release is not None,
                        f"{k.kver}: its headers name a Linux release"):
                continue
            suite_lines.add(line_of(release))
            t.ok(listed.get(k.kver) == release,
                 f"{k.kver} (Linux {release}) is on verified-kernels",
                 f"verified-kernels says {listed.get(k.kver, 'nothing')} for "
                 f"{k.kver}; a kernel the suite tests must be verified: "
                 "follow kernel/README.md, then list it")

            rc, out = check_kernel(script, k.headers, k.kver, listfile)
            t.ok(rc == 0 if k.kver in listed else rc == 1,
                 f"{k.kver}: check-kernel with its real headers "
                 f"{'accepts' if k.kver in listed else 'refuses'} it (rc={rc})", out)

            major, patch, sub = release.split(".")
            later = f"{major}.{patch}.{int(sub) + 1}"
            rc, out = check_kernel(script, fake_headers(tmp, later), k.kver,
                                   listfile)
            t.ok(rc == 1 and f"not built for kernel {k.kver}" in out
                 and (f"Linux {later}" in out or k.kver not in listed)
                 and "kernel/README.md" in out,
                 f"{k.kver}: headers of Linux {later} under its name are "
                 "refused, naming the kernel, the release and what to do", out)

            fake = k.kver + "-unverified"
            rc, out = check_kernel(script, k.headers, fake, listfile)
            t.ok(rc == 1 and f"not built for kernel {fake}: it is not one of" in out,
                 f"{fake}: a name not on the list is refused", out)

    for kver, release in entries:
        t.ok(line_of(release) in suite_lines,
             f"verified-kernels: the line of {kver} (Linux {line_of(release)}) "
             "is one the kernel suite tests",
             f"the suite tests {', '.join(sorted(suite_lines))}")

    print(f"1..{t.n}")
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
