/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STUB: being written. */
#include "config.h"
