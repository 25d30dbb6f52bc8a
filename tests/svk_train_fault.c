/*
 * svk-train on a device that gets lost: the tool itself (tools/train, its
 * main renamed svk_train_main), with Vulkan fault injection
 * (tests/fault_vk.c) under it. $FV_LOSE_SUBMIT=K: the process's K-th
 * vkQueueSubmit returns VK_ERROR_DEVICE_LOST, as a driver's does once its
 * watchdog has reset the GPU; once only, so that a context made after it
 * (svk-train --recover) works. For tests/svk_train_recover.sh.
 */
#include <stdlib.h>

#include "fault_vk.h"

int svk_train_main(int argc, char **argv);

int main(int argc, char **argv)
{
    const char *k = getenv("FV_LOSE_SUBMIT");
    fv_install();
    fv_arm(FV_QUEUE_SUBMIT, k ? strtoull(k, NULL, 10) : 0, VK_ERROR_DEVICE_LOST);
    return svk_train_main(argc, argv);
}
