# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the emulated affected host: a Haswell with one
# core and two Hyper-Threading siblings (-cpu Haswell,pmu=on -smp
# 2,sockets=1,cores=1,threads=2), its PMU and the SandyBridge/IvyBridge/
# Haswell HT counter-corruption erratum modelled by this project's QEMU
# (qemu/README.md). There the glue suite x86_intel_xsu_glue runs every
# case; under kunit.py's stock x86_64 QEMU, which has no PMU, it skips them.
#
#   tools/testing/kunit/kunit.py run --arch=x86_64 \
#       --qemu_config=/path/to/tools/testing/x86-pmu/kunit-qemu/hsw_ht.py \
#       --kunitconfig=arch/x86/events --kunitconfig=arch/x86/events/intel ...
#
# It needs the project's QEMU first on the PATH kunit.py starts
# qemu-system-x86_64 from: this file puts its own directory there, whose
# qemu-system-x86_64 starts build/qemu/qemu-system-x86_64 of this
# repository (scripts/qemu-build.sh builds it; XPMU_QEMU names another
# build) with TCG on one host thread, as the boots have it (see that
# script). scripts/kunit-qemu.sh (make kunit-qemu) runs the series
# kernel's suites this way.
#
# kconfig is the stock x86_64 configuration's: kunit.py compares it, with
# the .kunitconfig files, against the build's last configuration, and a
# kernel built with --arch=x86_64 (scripts/kernel-build.sh) is then run as
# it is, without configuring or building it again.

import os

from ..qemu_config import QemuArchParams

_HERE = os.path.dirname(os.path.abspath(__file__))
os.environ['PATH'] = _HERE + os.pathsep + os.environ.get('PATH', '')

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   # As the boots: the TSC is one host clock for both
			   # vCPUs (scripts/boot.sh says why it must be
			   # trusted), addresses read against System.map, a
			   # panic ends QEMU rather than waiting for the timeout.
			   kernel_command_line='console=ttyS0 tsc=reliable nokaslr panic=-1',
			   extra_qemu_params=['-L', '/usr/share/qemu',
					      '-L', '/usr/share/seabios',
					      '-bios', 'qboot.rom',
					      '-m', '2048',
					      '-cpu', 'Haswell,pmu=on',
					      '-smp', '2,sockets=1,cores=1,threads=2'])
