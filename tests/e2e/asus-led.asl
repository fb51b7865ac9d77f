/*
 * asus-led.asl: a minimal ASUS Wireless Radio Control device (ATK4002)
 * for the e2e suite, used when tests/kernel/asus has no fixture of its own.
 *
 * HSWC(0x5) / HSWC(0x4) switch the airplane-mode LED on / off and write
 * that byte to I/O port 0x440, where qemu's isa-debugcon records it for the
 * host: the LED as the "hardware" sees it.  HSWC(0x2) reads the state back.
 * \TNFY(N) does Notify (\_SB.ASHS, N), for the kernel suite's test-only
 * acpi-notify-trigger module: 0x88 is the airplane-mode key.
 */
DefinitionBlock ("", "SSDT", 2, "RFKAPP", "E2EASUS", 0x00000001)
{
    Method (\TNFY, 1, Serialized)
    {
        Notify (\_SB.ASHS, Arg0)
    }

    Scope (\_SB)
    {
        Device (ASHS)
        {
            Name (_HID, "ATK4002")
            Name (_UID, One)
            Name (LEDS, 0x04)

            Method (_STA, 0, NotSerialized)
            {
                Return (0x0F)
            }

            OperationRegion (LEDP, SystemIO, 0x0440, One)
            Field (LEDP, ByteAcc, NoLock, Preserve)
            {
                LEDB,   8
            }

            Method (HSWC, 1, Serialized)
            {
                If ((Arg0 == 0x04) || (Arg0 == 0x05))
                {
                    LEDS = Arg0
                    LEDB = Arg0
                    Return (One)
                }

                If (Arg0 == 0x02)
                {
                    Return (LEDS)
                }

                Return (Zero)
            }
        }
    }
}
