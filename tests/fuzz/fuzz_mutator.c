/*
 * Structure-aware mutations for the checkpoint fuzzer. Byte mutations alone
 * rarely get past the parser: changing one shape means changing the
 * data_offsets of every later tensor and the length of the data, in step.
 * Half of the mutations here are libFuzzer's own (LLVMFuzzerMutate: bytes,
 * the dictionary, comparison operands); the other half parse the header as
 * JSON, make one change a writer could make (a shape, a name, a dtype, a
 * tensor more or less, a configuration key, the step, a value) and lay the
 * data out again, so the result is a well-formed safetensors file that
 * reaches svk_checkpoint_apply's configuration, name, shape and value
 * checks. Inputs whose header does not parse get byte mutations only.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint64_t next(uint64_t *s) /* splitmix64, from libFuzzer's seed */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
#define PICK(r, array) ((array)[next(r) % (sizeof(array) / sizeof((array)[0]))])

/* A tensor entry as found, and where its bytes go when laid out again. */
typedef struct entry {
    cJSON *item;
    uint64_t begin, end;     /* in the old data */
    uint64_t bytes;          /* shape product * 4 */
} entry;

static bool number_u64(const cJSON *j, uint64_t *out)
{
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= 0) || j->valuedouble > 9007199254740992.0)
        return false;
    *out = (uint64_t)j->valuedouble;
    return true;
}

/* The tensor entries of root, or 0 when one is malformed (then only byte
 * mutations apply). */
static size_t entries_of(cJSON *root, uint64_t data_size, entry *out, size_t cap)
{
    size_t n = 0;
    for (cJSON *e = root->child; e; e = e->next) {
        if (e->string && !strcmp(e->string, "__metadata__"))
            continue;
        cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
        cJSON *offs = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
        if (n == cap || !cJSON_IsArray(shape) || cJSON_GetArraySize(offs) != 2)
            return 0;
        entry *t = &out[n++];
        t->item = e;
        if (!number_u64(cJSON_GetArrayItem(offs, 0), &t->begin) || !number_u64(cJSON_GetArrayItem(offs, 1), &t->end) ||
            t->end < t->begin || t->end > data_size)
            return 0;
    }
    return n;
}

static int by_begin(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* cJSON's replace and add calls leave the new item to the caller when they
 * fail (no such key or index, or no container): these free it then. */
static void replace_in_object(cJSON *object, const char *key, cJSON *item)
{
    if (!cJSON_ReplaceItemInObjectCaseSensitive(object, key, item))
        cJSON_Delete(item);
}

static void replace_in_array(cJSON *array, int index, cJSON *item)
{
    if (!cJSON_ReplaceItemInArray(array, index, item))
        cJSON_Delete(item);
}

static void add_to_array(cJSON *array, cJSON *item)
{
    if (!cJSON_AddItemToArray(array, item))
        cJSON_Delete(item);
}

static void add_to_object(cJSON *object, const char *key, cJSON *item)
{
    if (!cJSON_AddItemToObject(object, key, item))
        cJSON_Delete(item);
}

static void set_offsets(cJSON *item, uint64_t begin, uint64_t end)
{
    cJSON *a = cJSON_CreateArray();
    add_to_array(a, cJSON_CreateNumber((double)begin));
    add_to_array(a, cJSON_CreateNumber((double)end));
    replace_in_object(item, "data_offsets", a);
}

/* One edit of the configuration JSON in __metadata__["svk.config"]. */
static void edit_config(cJSON *meta, uint64_t *r)
{
    static const char *const keys[] = {"vocab", "ctx", "width", "layers", "heads", "mlp_hidden", "norm", "placement",
                                       "mlp", "pos", "bias", "tie_embeddings", "norm_eps", "rope_theta", "dropout"};
    static const char *const words[] = {"layernorm", "rmsnorm", "pre", "post", "siamese", "gelu", "swiglu", "learned",
                                        "rope", ""};
    static const double numbers[] = {0, 1, 2, 3, 4, 8, 10, 12, 16, 32, -1, 0.5, 1e-5, 1e9, 4294967296.0, 1e300,
                                     65536};
    cJSON *text = cJSON_GetObjectItemCaseSensitive(meta, "svk.config");
    cJSON *c = cJSON_IsString(text) ? cJSON_Parse(text->valuestring) : NULL;
    if (!c)
        return;
    const char *key = PICK(r, keys);
    cJSON *v;
    switch (next(r) % 5) {
    case 0: v = cJSON_CreateString(PICK(r, words)); break;
    case 1: v = cJSON_CreateBool(next(r) & 1); break;
    case 2: /* nested: the configuration must be flat */
        v = next(r) & 1 ? cJSON_CreateArray() : cJSON_CreateObject();
        if (cJSON_IsArray(v))
            add_to_array(v, cJSON_CreateNumber(PICK(r, numbers)));
        else
            add_to_object(v, key, cJSON_CreateNumber(PICK(r, numbers)));
        break;
    default: v = cJSON_CreateNumber(PICK(r, numbers)); break;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(c, key);
    if (next(r) % 8)
        add_to_object(c, key, v);
    else
        cJSON_Delete(v);
    char *s = cJSON_PrintUnformatted(c);
    if (s)
        replace_in_object(meta, "svk.config", cJSON_CreateString(s));
    free(s);
    cJSON_Delete(c);
}

/* A new name for a tensor: a neighbour's, a prefix more or less, another
 * block, or one too long. */
static void new_name(char *out, size_t cap, const char *old, cJSON *root, uint64_t *r)
{
    static const char *const prefixes[] = {"optimizer.m.", "optimizer.v.", "grad.", ""};
    size_t n = (size_t)cJSON_GetArraySize(root);
    switch (next(r) % 5) {
    case 0: { /* another entry's (a duplicate key) */
        cJSON *o = cJSON_GetArrayItem(root, (int)(next(r) % (n ? n : 1)));
        snprintf(out, cap, "%s", o && o->string ? o->string : old);
        break;
    }
    case 1:
        snprintf(out, cap, "%s%s", PICK(r, prefixes), old);
        break;
    case 2:
        snprintf(out, cap, "%s", !strncmp(old, "optimizer.", 10) && strlen(old) > 12 ? old + 12 : old);
        break;
    case 3: { /* another block */
        snprintf(out, cap, "%s", old);
        char *d = strpbrk(out, "0123456789");
        if (d)
            *d = (char)('0' + next(r) % 10);
        break;
    }
    default: { /* about the length limit (255 bytes) */
        size_t len = 250 + next(r) % 12;
        if (len >= cap)
            len = cap - 1;
        snprintf(out, cap, "%s", old);
        for (size_t i = strlen(out); i < len; i++)
            out[i] = 'x';
        out[len] = 0;
        break;
    }
    }
}

/* Parses, edits and reassembles; 0 if the input is not a well-formed file
 * or the result would not fit in max_size. */
static size_t structured(uint8_t *data, size_t size, size_t max_size, uint64_t *r)
{
    enum { MAX_ENTRIES = 512 };
    if (size < 10)
        return 0;
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = (hlen << 8) | data[i];
    if (hlen < 2 || hlen > size - 8)
        return 0;
    const uint8_t *old = data + 8 + hlen;
    uint64_t old_size = size - 8 - hlen;
    cJSON *root = cJSON_ParseWithLength((const char *)data + 8, (size_t)hlen);
    entry *es = calloc(MAX_ENTRIES, sizeof(*es));
    uint8_t *fresh = NULL;
    char *text = NULL;
    size_t out = 0, n = 0;
    if (!root || !es || !cJSON_IsObject(root) || !(n = entries_of(root, old_size, es, MAX_ENTRIES)))
        goto done;
    entry *t = &es[next(r) % n];
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "__metadata__");
    const unsigned op = (unsigned)(next(r) % 8);
    switch (op) {
    case 0: { /* a shape: one dimension changed, added or dropped */
        static const double dims[] = {0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 24, 32, 48, 64};
        cJSON *shape = cJSON_GetObjectItemCaseSensitive(t->item, "shape");
        int nd = cJSON_GetArraySize(shape), d = (int)(next(r) % (uint64_t)(nd + 1));
        if (d == nd || next(r) % 4 == 0)
            add_to_array(shape, cJSON_CreateNumber(PICK(r, dims)));
        else if (next(r) % 3 == 0)
            cJSON_DeleteItemFromArray(shape, d);
        else
            replace_in_array(shape, d, cJSON_CreateNumber(PICK(r, dims)));
        break;
    }
    case 1: { /* a name */
        char name[300];
        new_name(name, sizeof(name), t->item->string, root, r);
        char *copy = strdup(name);
        if (copy) {
            free(t->item->string);
            t->item->string = copy;
        }
        break;
    }
    case 2: { /* a dtype */
        static const char *const dtypes[] = {"F32", "I32", "F16", "BF16", "F64", "f32", ""};
        replace_in_object(t->item, "dtype", cJSON_CreateString(PICK(r, dtypes)));
        break;
    }
    case 3: /* a tensor fewer */
        cJSON_Delete(cJSON_DetachItemViaPointer(root, t->item));
        *t = es[--n];
        break;
    case 4: { /* a tensor more: a copy under another name */
        char name[300];
        new_name(name, sizeof(name), t->item->string, root, r);
        if (n == MAX_ENTRIES)
            goto done;
        es[n] = *t;
        es[n].item = cJSON_Duplicate(t->item, true);
        if (!cJSON_AddItemToObject(root, name, es[n].item)) {
            cJSON_Delete(es[n].item);
            break;
        }
        n++;
        break;
    }
    case 5: /* the configuration */
        if (meta)
            edit_config(meta, r);
        break;
    case 6: { /* the step */
        static const char *const steps[] = {"0", "1", "7", "", "-1", " 3", "3 ", "18446744073709551615",
                                            "18446744073709551616", "0x10", "1e3", "9007199254740992",
                                            "9007199254740993"};
        if (meta) {
            cJSON_DeleteItemFromObjectCaseSensitive(meta, "svk.step");
            if (next(r) % 6)
                cJSON_AddStringToObject(meta, "svk.step", PICK(r, steps));
        }
        break;
    }
    default: /* a value (below, once the data is laid out) */
        break;
    }
    /* Lay the data out again in its old order, each tensor the size its
     * shape says (its old bytes first, then zeros). */
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t elems = 1;
        cJSON *shape = cJSON_GetObjectItemCaseSensitive(es[i].item, "shape");
        for (cJSON *d = shape ? shape->child : NULL; d; d = d->next) {
            uint64_t v;
            if (!number_u64(d, &v) || (v && elems > max_size / v))
                goto done;
            elems *= v;
        }
        es[i].bytes = elems * 4;
        total += es[i].bytes;
        if (total > max_size)
            goto done;
    }
    qsort(es, n, sizeof(*es), by_begin);
    fresh = calloc(total ? total : 1, 1);
    if (!fresh)
        goto done;
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t keep = es[i].end - es[i].begin < es[i].bytes ? es[i].end - es[i].begin : es[i].bytes;
        memcpy(fresh + at, old + es[i].begin, keep);
        set_offsets(es[i].item, at, at + es[i].bytes);
        at += es[i].bytes;
    }
    /* A value: non-finite, subnormal, huge, negative zero, negative (which
     * no second moment may be). */
    if (total >= 4 && (op == 7 || next(r) % 8 == 0)) {
        static const float values[] = {NAN, INFINITY, -INFINITY, 1e-45f, -0.0f, 3e38f, -1.0f, -1e-45f};
        float v = PICK(r, values);
        memcpy(fresh + (next(r) % (total / 4)) * 4, &v, 4);
    }
    text = cJSON_PrintUnformatted(root);
    if (!text)
        goto done;
    size_t h = strlen(text), padded = (h + 7) / 8 * 8;
    if (8 + padded + total > max_size)
        goto done;
    for (int i = 0; i < 8; i++)
        data[i] = (uint8_t)((uint64_t)padded >> (8 * i));
    memcpy(data + 8, text, h);
    memset(data + 8 + h, ' ', padded - h);
    memcpy(data + 8 + padded, fresh, total);
    out = 8 + padded + total;
done:
    free(text);
    free(fresh);
    free(es);
    cJSON_Delete(root);
    return out;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint64_t r = seed;
    size_t n = next(&r) % 2 ? structured(data, size, max_size, &r) : 0;
    return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
