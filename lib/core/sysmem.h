/*
 * The memory the system has free: what an integrated GPU's or a CPU
 * device's "device-local" heap really holds, since that heap is the
 * system's memory, shared with every other process, and its reported size
 * (lavapipe: a fixed 2 GiB here; an APU: often half the RAM) says nothing
 * of what is free.
 */
#ifndef SVK_CORE_SYSMEM_H
#define SVK_CORE_SYSMEM_H

#include <stdbool.h>
#include <stdint.h>

/* Bytes of physical memory the system can give without swapping (Linux:
 * MemAvailable; Windows: the available physical memory). false where the
 * platform does not say (then nothing is capped by it). */
bool svk_sysmem_available(uint64_t *bytes);

#endif
