/*
 * Preloaded into the tests of the sanitizer build (tests/meson.build, test
 * setup 'sanitize'): dlclose does nothing, so that the Vulkan loader, the
 * driver and the validation layer stay mapped until LeakSanitizer runs at
 * exit. Unmapped, their frames print as "<unknown module>" and no
 * suppression (tests/lsan.supp) can name them; mapped, a leak is charged to
 * the library that made it.
 */
int dlclose(void *handle);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
