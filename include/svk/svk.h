/*
 * libsvk: SiameseNorm transformer training on any Vulkan device.
 * Umbrella header: includes every public header that needs no Vulkan
 * headers. Embedding into an existing Vulkan application: svk/vulkan.h.
 */
#ifndef SVK_SVK_H
#define SVK_SVK_H

#include "common.h"
#include "context.h"
#include "buffer.h"
#include "config.h"
#include "model.h"
#include "grad_reduce.h"
#include "data.h"
#include "file.h"
#include "tokenizer.h"
#include "convert.h"

#endif
