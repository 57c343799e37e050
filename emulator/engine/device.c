// SPDX-License-Identifier: GPL-2.0
/*
 * The adapter assembled: the engine core (engine.c) runs on its thread
 * the work of the layers above it, and this is where they register: the
 * command queue's dispatcher, the diagnostic dump, and the RoCEv2
 * transport as the data path.  It is the one file that names them for the
 * engine thread, which calls them through struct engine_work_ops only
 * (engine_priv.h says why).
 */
#include "engine_priv.h"
#include "roce/roce.h"

static const struct engine_work_ops orca_work = {
	.run_command	= cmdq_run_one,
	.take_dump	= engine_dump_take,
	.data_path	= &roce_data_path,
};

struct orca_engine *engine_create(const struct emu_host *host,
				  const struct emu_config *cfg)
{
	return engine_start(host, cfg, &orca_work);
}
