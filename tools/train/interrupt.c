/* POSIX signals (sigaction, write): svk-train builds where libsvk's tools
 * do, on POSIX systems (the Windows build is the library alone). */
#include "interrupt.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Set by the handler, read by the training loop. The handler may run on
 * any thread (the Vulkan driver has its own), so a lock-free atomic rather
 * than a volatile sig_atomic_t, whose cross-thread visibility C leaves
 * undefined; C11 allows lock-free atomics in a handler. */
static atomic_int caught;
static const char *note;
static size_t note_len;

static void on_signal(int sig)
{
    const int saved = errno;
    /* Back to the default actions first: a second SIGINT or SIGTERM, of
     * either kind, ends the process (interrupt.h says why). sigaction is
     * async-signal-safe. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
    int expected = 0;
    if (atomic_compare_exchange_strong(&caught, &expected, sig) && note_len) {
        ssize_t w = write(STDERR_FILENO, note, note_len);
        (void)w; /* nothing to do if stderr is gone */
    }
    errno = saved;
}

void svk_train_interrupt_arm(const char *message)
{
    note = message;
    note_len = message ? strlen(message) : 0;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* SA_RESTART: the step's waits and the saves' writes go on rather than
     * fail with EINTR; the loop looks at the flag between steps. */
    sa.sa_flags = SA_RESTART;
    for (int i = 0; i < 2; i++) {
        const int sig = i ? SIGTERM : SIGINT;
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sig, &sa, NULL);
    }
}

int svk_train_interrupted(void)
{
    return atomic_load(&caught);
}

void svk_train_interrupt_disarm(void)
{
    struct sigaction dfl, old;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    /* An ignored signal (never armed) stays ignored. */
    for (int i = 0; i < 2; i++) {
        const int sig = i ? SIGTERM : SIGINT;
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == on_signal)
            sigaction(sig, &dfl, NULL);
    }
}
