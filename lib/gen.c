/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: to be written. */
#include "config.h"
