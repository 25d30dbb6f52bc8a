/*
 * Ctrl-C (SIGINT) and SIGTERM in svk-train: the first asks the run to stop
 * after the step in progress, saving as at its end; a second one ends the
 * process at once.
 *
 * Why a second one ends it at once: after the first, what is left is the
 * step in flight and the saves, and every save is atomic (a temporary
 * renamed over the file), so killing the process mid-save leaves the old
 * checkpoint, log and curve whole, only a stray temporary beside them
 * (docs/RELIABILITY.md's known limits). A user who presses Ctrl-C twice
 * wants the terminal back; nothing is gained by making them wait.
 */
#ifndef SVK_TRAIN_INTERRUPT_H
#define SVK_TRAIN_INTERRUPT_H

/* Installs the handlers for SIGINT and SIGTERM. message (kept, not copied)
 * is written to stderr when the first signal arrives, from the handler
 * itself (with write(2), which a handler may call), so that the user sees
 * at once that the signal was taken even if the step takes long. A signal
 * ignored when svk-train started stays ignored, as is the custom: SIGINT
 * is, for a job a shell without job control runs in the background. */
void svk_train_interrupt_arm(const char *message);

/* The signal that asked the run to stop (SIGINT or SIGTERM), or 0. */
int svk_train_interrupted(void);

/* The signals' default actions back: from here on, one ends the process. */
void svk_train_interrupt_disarm(void);

#endif
