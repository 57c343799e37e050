// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA tracepoints: their one instantiation (orca_trace.h defines them).
 */
#define CREATE_TRACE_POINTS
#include "orca_trace.h"
