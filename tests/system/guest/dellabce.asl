/*
 * A Dell airplane-mode slider (DELLABCE), for Debian's dell-rbtn driver:
 * a platform rfkill switch of type wlan that hard-blocks, the kind
 * NetworkManager reports as "Wi-Fi hardware disabled".
 *
 * What the driver asks of the firmware (drivers/platform/x86/dell/
 * dell-rbtn.c): CRBT says what the device is (2 or 3: a slider, which
 * gets an rfkill device; 0 or 1: a toggle key); ARBT(1) at probe and
 * ARBT(0) at removal enable and disable it; GRBT is the slider's
 * position, 0 meaning radios off.  The driver reads GRBT when the rfkill
 * core queries it: at registration and before every soft change.
 *
 * GRBT reads port 0xe0, where qemu's pc-testdev keeps the last value the
 * guest wrote.  pc-testdev starts at 0, so the slider boots "radios off";
 * the guest writes 1 before it loads the driver.
 */
DefinitionBlock ("", "SSDT", 2, "RFKAPL", "DELLABCE", 0x00000001)
{
	Scope (\_SB)
	{
		Device (RBTN)
		{
			Name (_HID, "DELLABCE")

			OperationRegion (SLDR, SystemIO, 0xE0, 0x04)
			Field (SLDR, ByteAcc, NoLock, Preserve)
			{
				POS,	8
			}

			Method (_STA, 0, NotSerialized)
			{
				Return (0x0F)
			}

			Method (CRBT, 0, NotSerialized)
			{
				Return (0x02)
			}

			Method (ARBT, 1, NotSerialized)
			{
			}

			Method (GRBT, 0, Serialized)
			{
				Return ((POS & One))
			}
		}
	}
}
