/* reference._fastlines: block slices of robots and eldorado in C (issue 12).
 *
 * robots_lines and eldorado_lines lay out a batch of unit lines, the very bytes of the numpy
 * path of reference._blocks.Block.render (RobotsPools._rows or EldoradoPools._rows, then
 * unit_lines): per unit, its keyed words (Philox4x64-10, as numpy's), its scenario, then the
 * robots' order and the 18 buttons shuffled (Fisher-Yates), or eldorado's row and cell
 * orders, and the line. feistel_many is reference._permutation.FeistelPermutation.many (the
 * lot of each unit). tests/reference/test_fastlines.py holds each to the numpy path on every
 * lot of every stake, and to refusing every inconsistent argument: these read raw memory.
 * The GIL is released while they run.
 *
 * An optional extension (setup.py): a machine that cannot build it renders through numpy,
 * the same bytes, about five times slower.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_BUTTONS 64
#define MAX_LOTS 64

/* the low 64 bits of a * b, and the high 64 bits in *high */
static inline uint64_t mulhilo(uint64_t a, uint64_t b, uint64_t *high) {
#ifdef __SIZEOF_INT128__
    __uint128_t product = (__uint128_t)a * b;
    *high = (uint64_t)(product >> 64);
    return (uint64_t)product;
#else
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t middle = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
    return (middle << 32) | (p00 & 0xFFFFFFFFu);
#endif
}

/* Philox4x64-10 (Random123; numpy's Philox): the 4 words of counter (ctr, 0, 0, 0) under the
 * 128-bit key (k0, k1): reference._scenarios.unit_words, whose unit i has the counters
 * blocks * i .. blocks * i + blocks - 1 */
static inline void philox(uint64_t ctr, uint64_t k0, uint64_t k1, uint64_t out[4]) {
    uint64_t c0 = ctr, c1 = 0, c2 = 0, c3 = 0;
    for (int round = 0; round < 10; round++) {
        if (round) {
            k0 += 0x9E3779B97F4A7C15ull;
            k1 += 0xBB67AE8584CAA73Bull;
        }
        uint64_t hi0, hi1;
        uint64_t lo0 = mulhilo(0xD2E7470EE14C6C93ull, c0, &hi0);
        uint64_t lo1 = mulhilo(0xCA5A826395121157ull, c2, &hi1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* floor(w * n / 2^64) exactly, in 64-bit halves: reference._scenarios.uniform_below */
static inline uint64_t uniform_below(uint64_t w, uint64_t n) {
    uint64_t high = w >> 32, low = w & 0xFFFFFFFFu;
    return (high * n + ((low * n) >> 32)) >> 32;
}

static inline char *put_decimal(char *out, uint64_t value) {
    char digits[20];
    int n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    while (n) *out++ = digits[--n];
    return out;
}

/* One lot of a block. robots: pool (scenarios, buttons, cell) bytes, each button's text, zero
 * padding and a space; lengths (scenarios, buttons), each button's text length. eldorado:
 * pool (scenarios, cell) bytes, each ticket then zeros; lengths unused. */
typedef struct {
    Py_buffer pool;
    Py_buffer lengths;
    uint64_t prize;
    uint64_t scenarios;
    Py_ssize_t cell;
} Lot;

static const char INDEX[] = "{\"index\":";
static const char PRIZE[] = ",\"prize_cents\":";
static const char TICKET[] = ",\"ticket\":\"";
static const char END[] = "\"}\n";

/* The line's start, up to the ticket's opening quote: index and prize in decimal. */
static inline char *put_head(char *out, uint64_t index, uint64_t prize) {
    memcpy(out, INDEX, sizeof(INDEX) - 1);
    out = put_decimal(out + sizeof(INDEX) - 1, index);
    memcpy(out, PRIZE, sizeof(PRIZE) - 1);
    out = put_decimal(out + sizeof(PRIZE) - 1, prize);
    memcpy(out, TICKET, sizeof(TICKET) - 1);
    return out + sizeof(TICKET) - 1;
}

/* The lots' (prize_cents, pool, per-scenario data, cell) tuples of a sequence into lots[]:
 * *count is how many hold buffers (release_lots frees them, also after a failure). */
static int load_lots(PyObject *seq, Lot *lots, Py_ssize_t *count, const char *name) {
    PyObject *fast = PySequence_Fast(seq, "lots must be a sequence");
    if (fast == NULL) return -1;
    int ok = 0;
    if (PySequence_Fast_GET_SIZE(fast) > MAX_LOTS) {
        PyErr_Format(PyExc_ValueError, "%s: too many lots", name);
        ok = -1;
    }
    for (Py_ssize_t k = 0; ok == 0 && k < PySequence_Fast_GET_SIZE(fast); k++) {
        Lot *lot = &lots[k];
        unsigned long long prize;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, k), "Ky*y*n", &prize, &lot->pool,
                              &lot->lengths, &lot->cell)) {
            ok = -1;
            break;
        }
        (*count)++;
        lot->prize = prize;
        if (lot->cell < 1 || lot->pool.len == 0) {
            PyErr_Format(PyExc_ValueError, "%s: a pool of inconsistent size", name);
            ok = -1;
        }
    }
    Py_DECREF(fast);
    return ok;
}

static void release_lots(Lot *lots, Py_ssize_t count) {
    for (Py_ssize_t k = 0; k < count; k++) {
        PyBuffer_Release(&lots[k].pool);
        PyBuffer_Release(&lots[k].lengths);
    }
}

/* Every unit's lot is one of the count lots given. */
static int lots_in_range(const int64_t *lot_index, Py_ssize_t units, Py_ssize_t count,
                         const char *name) {
    for (Py_ssize_t i = 0; i < units; i++)
        if (lot_index[i] < 0 || lot_index[i] >= count) {
            PyErr_Format(PyExc_ValueError, "%s: a unit's lot is out of range", name);
            return -1;
        }
    return 0;
}

/* A bytes object for units lines of at most ticket_bytes of ticket each (its fixed parts and
 * two numbers of at most 20 digits besides), or NULL with the error set. */
static PyObject *line_buffer(Py_ssize_t units, Py_ssize_t ticket_bytes, const char *name) {
    Py_ssize_t bound =
        sizeof(INDEX) + sizeof(PRIZE) + sizeof(TICKET) + sizeof(END) + 40 + ticket_bytes;
    if (units > PY_SSIZE_T_MAX / bound) {
        PyErr_Format(PyExc_OverflowError, "%s: slice too large", name);
        return NULL;
    }
    return PyBytes_FromStringAndSize(NULL, units * bound);
}

/* The bytes written into result, or NULL: it was sized for the longest lines. */
static PyObject *trimmed(PyObject *result, const char *start, const char *end) {
    if (_PyBytes_Resize(&result, end - start) < 0) return NULL;
    return result;
}

static PyObject *robots_lines(PyObject *self, PyObject *args) {
    long long first;
    Py_buffer lot_of = {0}, orders = {0};
    unsigned long long key_low, key_high;
    PyObject *lots_seq;
    Py_ssize_t blocks, robots, buttons;
    if (!PyArg_ParseTuple(args, "Ly*KKnOy*nn", &first, &lot_of, &key_low, &key_high, &blocks,
                          &lots_seq, &orders, &robots, &buttons))
        return NULL;

    PyObject *result = NULL;
    Lot lots[MAX_LOTS];
    Py_ssize_t lot_count = 0;

    Py_ssize_t units = lot_of.len / (Py_ssize_t)sizeof(int64_t);
    /* words 0 (scenario), 1 (order), 2 .. buttons (the shuffle): this many Philox blocks */
    Py_ssize_t needed = (buttons + 1 + 3) / 4;
    if (first < 0 || first > (1LL << 48) || buttons < 1 || buttons > MAX_BUTTONS ||
        robots < 1 || blocks < needed || blocks > 64 || orders.len % robots ||
        lot_of.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "robots_lines: inconsistent sizes");
        goto done;
    }
    if (load_lots(lots_seq, lots, &lot_count, "robots_lines") < 0) goto done;
    Py_ssize_t longest = 0;
    for (Py_ssize_t k = 0; k < lot_count; k++) {
        Lot *lot = &lots[k];
        if (lot->pool.len % (buttons * lot->cell) ||
            lot->lengths.len * lot->cell != lot->pool.len) {
            PyErr_SetString(PyExc_ValueError, "robots_lines: a pool of inconsistent size");
            goto done;
        }
        lot->scenarios = (uint64_t)(lot->pool.len / (buttons * lot->cell));
        if (buttons * lot->cell > longest) longest = buttons * lot->cell;
    }
    const int64_t *lot_index = (const int64_t *)lot_of.buf;
    if (lots_in_range(lot_index, units, lot_count, "robots_lines") < 0) goto done;
    result = line_buffer(units, robots + 1 + longest, "robots_lines"); /* order, '|', buttons */
    if (result == NULL) goto done;
    char *out = PyBytes_AS_STRING(result);
    const char *start = out;
    const char *order_table = (const char *)orders.buf;
    uint64_t order_count = (uint64_t)(orders.len / robots);

    int too_long = 0; /* a button's text length past its cell: refused after the loop */
    Py_BEGIN_ALLOW_THREADS
    int perm[MAX_BUTTONS];
    uint64_t w[MAX_BUTTONS + 4];
    for (Py_ssize_t i = 0; i < units; i++) {
        uint64_t counter = ((uint64_t)first + (uint64_t)i) * (uint64_t)blocks;
        for (Py_ssize_t b = 0; b < needed; b++) philox(counter + b, key_low, key_high, w + 4 * b);
        const Lot *lot = &lots[lot_index[i]];
        uint64_t choice = uniform_below(w[0], lot->scenarios);
        const char *order = order_table + uniform_below(w[1], order_count) * robots;
        for (int b = 0; b < buttons; b++) perm[b] = b;
        /* Fisher-Yates, step k (buttons - 1 down to 1) drawing from word 2 + (buttons - 1 - k):
           reference._scenarios.shuffled_columns */
        for (Py_ssize_t k = buttons - 1; k > 0; k--) {
            uint64_t j = uniform_below(w[2 + (buttons - 1 - k)], (uint64_t)k + 1);
            int t = perm[j];
            perm[j] = perm[k];
            perm[k] = t;
        }
        out = put_head(out, (uint64_t)first + (uint64_t)i, lot->prize);
        memcpy(out, order, robots);
        out += robots;
        *out++ = '|';
        const char *scenario = (const char *)lot->pool.buf + choice * buttons * lot->cell;
        const uint8_t *length = (const uint8_t *)lot->lengths.buf + choice * buttons;
        for (Py_ssize_t b = 0; b < buttons; b++) {
            int shown = perm[b];
            if (length[shown] >= lot->cell) {
                too_long = 1;
                break;
            }
            memcpy(out, scenario + shown * lot->cell, length[shown]);
            out += length[shown];
            *out++ = ' ';
        }
        if (too_long) break;
        out[-1] = '"'; /* the last button is followed by no space */
        memcpy(out, END + 1, sizeof(END) - 2);
        out += sizeof(END) - 2;
    }
    Py_END_ALLOW_THREADS

    if (too_long) {
        PyErr_SetString(PyExc_ValueError, "robots_lines: a button's text past its cell");
        Py_CLEAR(result);
    } else {
        result = trimmed(result, start, out);
    }

done:
    release_lots(lots, lot_count);
    PyBuffer_Release(&lot_of);
    PyBuffer_Release(&orders);
    return result;
}

#define MAX_ROWS 64
#define MAX_WORDS 256

/* eldorado_lines: reference._eldorado_make.EldoradoPools._rows, then unit_lines. A pool is
 * (scenarios, width) bytes, each ticket then zeros, every row at a multiple of cells + 1;
 * shown cell (g, r, c) is scenario cell (g, row_orders[w[1 + g]][r], cell_orders[w[1 + grids
 * + 3 g + r]][c]) and the separators stay in place; zero bytes are dropped. */
static PyObject *eldorado_lines(PyObject *self, PyObject *args) {
    long long first;
    Py_buffer lot_of = {0}, row_orders = {0}, cell_orders = {0};
    unsigned long long key_low, key_high;
    PyObject *lots_seq;
    Py_ssize_t blocks, grids, rows, cells;
    if (!PyArg_ParseTuple(args, "Ly*KKnOy*y*nnn", &first, &lot_of, &key_low, &key_high, &blocks,
                          &lots_seq, &row_orders, &cell_orders, &grids, &rows, &cells))
        return NULL;

    PyObject *result = NULL;
    Lot lots[MAX_LOTS];
    Py_ssize_t lot_count = 0;
    Py_ssize_t units = lot_of.len / (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t words_needed = 1 + grids + grids * rows;
    Py_ssize_t needed = (words_needed + 3) / 4;
    Py_ssize_t row_width = cells + 1, width = grids * rows * (cells + 1);
    Py_ssize_t row_order_size = rows * (Py_ssize_t)sizeof(int64_t);
    Py_ssize_t cell_order_size = cells * (Py_ssize_t)sizeof(int64_t);
    if (first < 0 || first > (1LL << 48) || grids < 1 || rows < 1 || cells < 1 ||
        grids * rows > MAX_ROWS || cells > MAX_ROWS || words_needed > MAX_WORDS ||
        blocks < needed || blocks > 64 || lot_of.len % (Py_ssize_t)sizeof(int64_t) ||
        row_orders.len == 0 || row_orders.len % row_order_size || cell_orders.len == 0 ||
        cell_orders.len % cell_order_size) {
        PyErr_SetString(PyExc_ValueError, "eldorado_lines: inconsistent sizes");
        goto done;
    }
    const int64_t *row_table = (const int64_t *)row_orders.buf;
    const int64_t *cell_table = (const int64_t *)cell_orders.buf;
    for (Py_ssize_t k = 0; k < row_orders.len / (Py_ssize_t)sizeof(int64_t); k++)
        if (row_table[k] < 0 || row_table[k] >= rows) {
            PyErr_SetString(PyExc_ValueError, "eldorado_lines: a row order out of range");
            goto done;
        }
    for (Py_ssize_t k = 0; k < cell_orders.len / (Py_ssize_t)sizeof(int64_t); k++)
        if (cell_table[k] < 0 || cell_table[k] >= cells) {
            PyErr_SetString(PyExc_ValueError, "eldorado_lines: a cell order out of range");
            goto done;
        }
    if (load_lots(lots_seq, lots, &lot_count, "eldorado_lines") < 0) goto done;
    for (Py_ssize_t k = 0; k < lot_count; k++) {
        Lot *lot = &lots[k];
        if (lot->cell != width || lot->pool.len % width) {
            PyErr_SetString(PyExc_ValueError, "eldorado_lines: a pool of inconsistent size");
            goto done;
        }
        lot->scenarios = (uint64_t)(lot->pool.len / width);
    }
    const int64_t *lot_index = (const int64_t *)lot_of.buf;
    if (lots_in_range(lot_index, units, lot_count, "eldorado_lines") < 0) goto done;
    result = line_buffer(units, width, "eldorado_lines");
    if (result == NULL) goto done;
    char *out = PyBytes_AS_STRING(result);
    const char *start = out;
    uint64_t row_order_count = (uint64_t)(row_orders.len / row_order_size);
    uint64_t cell_order_count = (uint64_t)(cell_orders.len / cell_order_size);

    Py_BEGIN_ALLOW_THREADS
    uint64_t w[MAX_WORDS + 4];
    for (Py_ssize_t i = 0; i < units; i++) {
        uint64_t counter = ((uint64_t)first + (uint64_t)i) * (uint64_t)blocks;
        for (Py_ssize_t b = 0; b < needed; b++) philox(counter + b, key_low, key_high, w + 4 * b);
        const Lot *lot = &lots[lot_index[i]];
        const char *scenario =
            (const char *)lot->pool.buf + uniform_below(w[0], lot->scenarios) * width;
        out = put_head(out, (uint64_t)first + (uint64_t)i, lot->prize);
        for (Py_ssize_t g = 0; g < grids; g++) {
            const int64_t *row_order = row_table + uniform_below(w[1 + g], row_order_count) * rows;
            const char *grid = scenario + g * rows * row_width;
            for (Py_ssize_t r = 0; r < rows; r++) {
                const char *source = grid + row_order[r] * row_width;
                const int64_t *cell_order =
                    cell_table + uniform_below(w[1 + grids + g * rows + r], cell_order_count) * cells;
                for (Py_ssize_t c = 0; c < cells; c++) {
                    char byte = source[cell_order[c]];
                    if (byte) *out++ = byte;
                }
                char separator = grid[r * row_width + cells]; /* the shown place's own */
                if (separator) *out++ = separator;
            }
        }
        memcpy(out, END, sizeof(END) - 1);
        out += sizeof(END) - 1;
    }
    Py_END_ALLOW_THREADS

    result = trimmed(result, start, out);

done:
    release_lots(lots, lot_count);
    PyBuffer_Release(&lot_of);
    PyBuffer_Release(&row_orders);
    PyBuffer_Release(&cell_orders);
    return result;
}

#define MAX_ROUNDS 64

/* feistel_many: reference._permutation.FeistelPermutation.many, the same network (the round
 * functions as tables, the halves swapping sizes every round) and the same cycle walking,
 * into out; every x must be in 0 .. size - 1. */
static PyObject *feistel_many(PyObject *self, PyObject *args) {
    Py_buffer x = {0}, out = {0};
    PyObject *tables_seq;
    Py_ssize_t high, low, size;
    if (!PyArg_ParseTuple(args, "y*w*Onnn", &x, &out, &tables_seq, &high, &low, &size))
        return NULL;
    PyObject *result = NULL;
    Py_buffer tables[MAX_ROUNDS];
    Py_ssize_t rounds = 0;
    PyObject *fast = PySequence_Fast(tables_seq, "feistel_many: tables must be a sequence");
    if (fast == NULL) goto done;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(fast);
    if (count < 2 || count % 2 || count > MAX_ROUNDS || high < 1 || low < 1 || high > 31 ||
        low > 31 || size < 1 || size > (1LL << (high + low)) ||
        x.len % (Py_ssize_t)sizeof(int64_t) || out.len != x.len) {
        PyErr_SetString(PyExc_ValueError, "feistel_many: inconsistent sizes");
        goto done;
    }
    for (Py_ssize_t r = 0; r < count; r++) {
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(fast, r), &tables[r], PyBUF_C_CONTIGUOUS) <
            0)
            goto done;
        rounds++;
        /* round r reads the low half (even r: low bits) or the high half (odd r: high bits) */
        Py_ssize_t in_bits = r % 2 ? high : low;
        if (tables[r].len != ((Py_ssize_t)1 << in_bits) * (Py_ssize_t)sizeof(int64_t)) {
            PyErr_SetString(PyExc_ValueError, "feistel_many: a round table of the wrong size");
            goto done;
        }
    }
    const int64_t *in = (const int64_t *)x.buf;
    int64_t *to = (int64_t *)out.buf;
    Py_ssize_t n = x.len / (Py_ssize_t)sizeof(int64_t);
    for (Py_ssize_t i = 0; i < n; i++)
        if (in[i] < 0 || in[i] >= size) {
            PyErr_SetString(PyExc_ValueError, "feistel_many: an index outside the domain");
            goto done;
        }
    const int64_t *table[MAX_ROUNDS];
    for (Py_ssize_t r = 0; r < rounds; r++) table[r] = (const int64_t *)tables[r].buf;
    uint64_t high_mask = ((uint64_t)1 << high) - 1, low_mask = ((uint64_t)1 << low) - 1;

    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t y = (uint64_t)in[i];
        do {
            for (Py_ssize_t r = 0; r < rounds; r += 2) {
                uint64_t b = y & low_mask; /* (A: high bits, B: low bits) -> (B, A ^ F(B)) */
                y = (b << high) | ((y >> low) ^ (uint64_t)table[r][b]);
                b = y & high_mask; /* the halves have swapped sizes */
                y = (b << low) | ((y >> high) ^ (uint64_t)table[r + 1][b]);
            }
        } while (y >= (uint64_t)size); /* cycle walking */
        to[i] = (int64_t)y;
    }
    Py_END_ALLOW_THREADS

    result = Py_None;
    Py_INCREF(result);

done:
    for (Py_ssize_t r = 0; r < rounds; r++) PyBuffer_Release(&tables[r]);
    Py_XDECREF(fast);
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"robots_lines", robots_lines, METH_VARARGS,
     "robots_lines(first, lot_of, key_low, key_high, blocks, lots, orders, robots, buttons)\n"
     "-> bytes\n\n"
     "The unit lines of units first.. of a robots block: lot_of (int64 per unit), the\n"
     "scenario key's halves and Philox blocks per unit (unit_words), lots ((prize_cents,\n"
     "pool, lengths, cell) per lot), orders (the robots' orders, robots bytes each)."},
    {"eldorado_lines", eldorado_lines, METH_VARARGS,
     "eldorado_lines(first, lot_of, key_low, key_high, blocks, lots, row_orders, cell_orders,\n"
     "grids, rows, cells) -> bytes\n\n"
     "The unit lines of units first.. of an eldorado block: lots ((prize_cents, pool, unused,\n"
     "width) per lot), row_orders and cell_orders (int64 permutation tables)."},
    {"feistel_many", feistel_many, METH_VARARGS,
     "feistel_many(x, out, tables, high, low, size) -> None\n\n"
     "perm(x) of every int64 in x, into out (int64, writable): the round functions' tables\n"
     "(int64, 2 ** low entries for even rounds, 2 ** high for odd ones), the index's high and\n"
     "low bit counts, the domain's size."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "reference._fastlines",
                                    "Robots unit lines in C (reference._blocks).", -1, methods};

PyMODINIT_FUNC PyInit__fastlines(void) { return PyModule_Create(&module); }
