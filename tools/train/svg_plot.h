/*
 * The loss curve of a run, drawn as an SVG file beside its CSV
 * (train_log.h): the training loss of every step against the step, the
 * held-out loss where it was measured, and where steps were skipped as
 * non-finite. Written by hand, not by a plotting library: an SVG of lines
 * and text is a few hundred bytes of markup, and svk-train links libsvk
 * alone.
 */
#ifndef SVK_TRAIN_SVG_PLOT_H
#define SVK_TRAIN_SVG_PLOT_H

#include "svk/common.h"
#include "train_log.h"

/* Writes the curve of l's rows to l->svg (svk_file_write_atomic), titled
 * title (any bytes: escaped for XML). SVK_ERROR_OUT_OF_HOST_MEMORY, or
 * the write's status with svk_last_error() saying why. */
svk_status svk_train_svg_write(const svk_train_log *l, const char *title);

#endif
