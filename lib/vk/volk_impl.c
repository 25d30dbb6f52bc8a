/*
 * volk itself (https://github.com/zeux/volk), compiled into libsvk from the
 * volk.c that Debian's libvulkan-volk-dev installs beside volk.h
 * (lib/meson.build copies both into the build directory). Through vk.h, so
 * that its globals get libsvk's names (volk_names.py says why).
 */
#include "vk.h"

#include "volk.c"
