/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: to be written. */
#include "config.h"
#include "harness.h"
int main(int argc, char **argv)
{
	return t_main(NULL, 0, argc, argv) ? 77 : 77;
}
