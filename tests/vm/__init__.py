# SPDX-License-Identifier: GPL-2.0-or-later
"""The VM harness shared by the kernel, asus and e2e suites.

  vm.kernels    the kernels that can be booted and built for, and their files
  vm.vmrun      boot one kernel in qemu with modules and a guest program (TAP)
  vm.testlib    TAP output and a Kbuild build of kernel/ for one kernel
  vm.kernel_root prepare a Debian suite's kernels in a chroot (configure time):
                sid's newest, trixie's 6.12 builds

It is a package under tests/: meson runs every test that uses it with
PYTHONPATH=<source>/tests (vm_env in tests/vm/meson.build).  By hand:

  PYTHONPATH=tests python3 -m vm.vmrun --help
"""
