// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rfkill-guest-test: runs as root inside the test VM (see tests/vm/vmrun.py)
 * and checks the rules of issue 4 against the rfkill core that is loaded:
 * /dev/rfkill events and writes, sysfs, LED triggers and the airplane-mode
 * indicator (ops 4 and 5).  Prints TAP on stdout.
 *
 * Expects mac80211_hwsim radios=2 (phy0, phy1) and hci_vhci loaded; it
 * creates hci0 itself through /dev/vhci.  Static, so it needs no libc in
 * the initramfs.  main() runs the check groups of check-*.c in an order
 * where each leaves every radio unblocked for the next.
 *
 *   rfkill-guest-test [--rfkill-bin /usr/sbin/rfkill] [--fuzz N]
 *                     [--expect-rfkill-version V] [--race N] [--seed S]
 *   rfkill-guest-test --default-off [--expect-rfkill-version V]
 *   rfkill-guest-test --hard-block [--expect-rfkill-version V]
 *
 * --default-off is the short scenario for rfkill loaded with
 * default_state=0 (radios start blocked); --hard-block needs only hwsim,
 * toshiba_bluetooth, fixtures/tos6205.aml and qemu's pc-testdev.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest.h"

const char *rfkill_bin;
long fuzz_writes = 20000;
int race_procs = 64;
uint64_t seed = 0x5eed1e55c0ffeeULL;

static const char *expect_version;
static bool default_off;	/* rfkill was loaded with default_state=0 */
static bool hard_block;		/* the TOS6205 switch scenario */

int main(int argc, char **argv)
{
	tap_init();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rfkill-bin") && i + 1 < argc)
			rfkill_bin = argv[++i];
		else if (!strcmp(argv[i], "--expect-rfkill-version") && i + 1 < argc)
			expect_version = argv[++i];
		else if (!strcmp(argv[i], "--default-off"))
			default_off = true;
		else if (!strcmp(argv[i], "--hard-block"))
			hard_block = true;
		else if (!strcmp(argv[i], "--fuzz") && i + 1 < argc)
			fuzz_writes = atol(argv[++i]);
		else if (!strcmp(argv[i], "--race") && i + 1 < argc)
			race_procs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--rfkill-bin PATH] [--expect-rfkill-version V]\n"
				"       [--default-off | --hard-block] [--fuzz N] [--race N] [--seed S]\n",
				argv[0]);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);

	if (expect_version) {
		char v[64];
		int r = read_text("/sys/module/rfkill/version", v, sizeof(v));

		tap_ok(r == 0 && !strcmp(v, expect_version),
		       "the loaded rfkill is ours: /sys/module/rfkill/version is %s (got %s)",
		       expect_version, r ? strerror(-r) : v);
	}
	test_devnode();
	if (hard_block) {
		scan_sysfs();
		test_hard_block();
		test_dmesg();
		return tap_done();
	}
	setup_radios();
	if (!radios[0].found || !radios[1].found || !radios[2].found) {
		tap_diag("radios missing; the remaining checks need phy0, phy1 and hci0");
		return tap_done() | 1;
	}
	if (default_off) {
		test_default_off();
		test_dmesg();
		return tap_done();
	}
	test_sysfs();
	test_initial_events();
	test_sizes();
	test_change();
	test_invalid();
	test_queue_limit();
	test_led_trigger(false);
	if (!led_dir[0])
		tap_diag("no LED offers %s: LED checks fail, events are still checked",
			 RFKILL_AIRPLANE_MODE_TRIGGER);
	test_global_triggers();
	test_default_rule();
	test_order_soft();
	test_hotplug_blocked();
	test_ownership();
	test_sigkill_release();
	test_race(race_procs);
	test_hold();
	test_v1_reader();
	test_util_linux();
	test_plain_reader();
	test_input();
	test_suspend();
	test_fuzz(fuzz_writes);
	test_no_radios();
	test_dmesg();
	return tap_done();
}
