#include "sysmem.h"

#include <stdio.h>
#include <string.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

bool svk_sysmem_available(uint64_t *bytes)
{
    MEMORYSTATUSEX s;
    s.dwLength = sizeof(s);
    if (!GlobalMemoryStatusEx(&s))
        return false;
    *bytes = s.ullAvailPhys;
    return true;
}
#elif defined(__linux__)
bool svk_sysmem_available(uint64_t *bytes)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return false;
    char line[256];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long long kb;
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            *bytes = (uint64_t)kb * 1024;
            found = true;
        }
    }
    fclose(f);
    return found;
}
#else
bool svk_sysmem_available(uint64_t *bytes)
{
    (void)bytes;
    return false;
}
#endif
