/* reference._fastlines: the unit lines of a robots block slice, in C (issue 12).
 *
 * The same bytes as the numpy path of reference._blocks.Block.render for robots
 * (RobotsPools._rows, then unit_lines): tests/reference/test_fastlines.py holds them equal on
 * every lot of every stake. The keyed words (Philox) and each unit's lot (the Feistel
 * permutation) are still computed by numpy; this only does the per-unit work numpy does
 * column by column: pick the scenario, draw the robots' order, shuffle the 18 buttons
 * (Fisher-Yates) and lay the line out. The GIL is released while it runs.
 *
 * An optional extension: a machine that cannot build it renders through numpy, the same
 * bytes, about four times slower.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_BUTTONS 64
#define MAX_LOTS 64

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

typedef struct {
    Py_buffer pool;    /* (scenarios, buttons, cell) uint8: text, zero padding, a space */
    Py_buffer lengths; /* (scenarios, buttons) uint8: each button's text length */
    uint64_t prize;
    uint64_t scenarios;
    Py_ssize_t cell;
} Lot;

static const char INDEX[] = "{\"index\":";
static const char PRIZE[] = ",\"prize_cents\":";
static const char TICKET[] = ",\"ticket\":\"";
static const char END[] = "\"}\n";

static PyObject *robots_lines(PyObject *self, PyObject *args) {
    long long first;
    Py_buffer lot_of = {0}, words = {0}, orders = {0};
    PyObject *lots_seq;
    Py_ssize_t word_count, robots, buttons;
    if (!PyArg_ParseTuple(args, "Ly*y*nOy*nn", &first, &lot_of, &words, &word_count, &lots_seq,
                          &orders, &robots, &buttons))
        return NULL;

    PyObject *result = NULL;
    Lot lots[MAX_LOTS];
    Py_ssize_t lot_count = 0;
    PyObject *fast = NULL;

    Py_ssize_t units = lot_of.len / (Py_ssize_t)sizeof(int64_t);
    if (first < 0 || buttons < 1 || buttons > MAX_BUTTONS || robots < 1 ||
        word_count < 2 + buttons - 1 || orders.len % robots ||
        lot_of.len % (Py_ssize_t)sizeof(int64_t) ||
        words.len != units * word_count * (Py_ssize_t)sizeof(uint64_t)) {
        PyErr_SetString(PyExc_ValueError, "robots_lines: inconsistent sizes");
        goto done;
    }
    fast = PySequence_Fast(lots_seq, "robots_lines: lots must be a sequence");
    if (fast == NULL) goto done;
    if (PySequence_Fast_GET_SIZE(fast) > MAX_LOTS) {
        PyErr_SetString(PyExc_ValueError, "robots_lines: too many lots");
        goto done;
    }
    Py_ssize_t longest = 0;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(fast); k++) {
        Lot *lot = &lots[k];
        unsigned long long prize;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, k), "Ky*y*n", &prize, &lot->pool,
                              &lot->lengths, &lot->cell))
            goto done;
        lot_count++;
        lot->prize = prize;
        if (lot->cell < 1 || lot->pool.len % (buttons * lot->cell) ||
            lot->lengths.len * lot->cell != lot->pool.len || lot->pool.len == 0) {
            PyErr_SetString(PyExc_ValueError, "robots_lines: a pool of inconsistent size");
            goto done;
        }
        lot->scenarios = (uint64_t)(lot->pool.len / (buttons * lot->cell));
        if (buttons * lot->cell > longest) longest = buttons * lot->cell;
    }
    const int64_t *lot_index = (const int64_t *)lot_of.buf;
    for (Py_ssize_t i = 0; i < units; i++) {
        if (lot_index[i] < 0 || lot_index[i] >= lot_count) {
            PyErr_SetString(PyExc_ValueError, "robots_lines: a unit's lot is out of range");
            goto done;
        }
    }
    /* every line: its fixed parts, two numbers of at most 20 digits, order, '|', buttons */
    Py_ssize_t bound = sizeof(INDEX) + sizeof(PRIZE) + sizeof(TICKET) + sizeof(END) + 40 +
                       robots + 1 + longest;
    if (units > PY_SSIZE_T_MAX / bound) {
        PyErr_SetString(PyExc_OverflowError, "robots_lines: slice too large");
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, units * bound);
    if (result == NULL) goto done;
    char *out = PyBytes_AS_STRING(result);
    const char *start = out;
    const uint64_t *w = (const uint64_t *)words.buf;
    const char *order_table = (const char *)orders.buf;
    uint64_t order_count = (uint64_t)(orders.len / robots);

    Py_BEGIN_ALLOW_THREADS
    int perm[MAX_BUTTONS];
    for (Py_ssize_t i = 0; i < units; i++, w += word_count) {
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
        memcpy(out, INDEX, sizeof(INDEX) - 1);
        out = put_decimal(out + sizeof(INDEX) - 1, (uint64_t)first + (uint64_t)i);
        memcpy(out, PRIZE, sizeof(PRIZE) - 1);
        out = put_decimal(out + sizeof(PRIZE) - 1, lot->prize);
        memcpy(out, TICKET, sizeof(TICKET) - 1);
        out += sizeof(TICKET) - 1;
        memcpy(out, order, robots);
        out += robots;
        *out++ = '|';
        const char *scenario = (const char *)lot->pool.buf + choice * buttons * lot->cell;
        const uint8_t *length = (const uint8_t *)lot->lengths.buf + choice * buttons;
        for (Py_ssize_t b = 0; b < buttons; b++) {
            int shown = perm[b];
            memcpy(out, scenario + shown * lot->cell, length[shown]);
            out += length[shown];
            *out++ = ' ';
        }
        out[-1] = '"'; /* the last button is followed by no space */
        memcpy(out, END + 1, sizeof(END) - 2);
        out += sizeof(END) - 2;
    }
    Py_END_ALLOW_THREADS

    if (_PyBytes_Resize(&result, out - start) < 0) result = NULL;

done:
    for (Py_ssize_t k = 0; k < lot_count; k++) {
        PyBuffer_Release(&lots[k].pool);
        PyBuffer_Release(&lots[k].lengths);
    }
    Py_XDECREF(fast);
    PyBuffer_Release(&lot_of);
    PyBuffer_Release(&words);
    PyBuffer_Release(&orders);
    return result;
}

static PyMethodDef methods[] = {
    {"robots_lines", robots_lines, METH_VARARGS,
     "robots_lines(first, lot_of, words, word_count, lots, orders, robots, buttons) -> bytes\n\n"
     "The unit lines of units first.. of a robots block: lot_of (int64 per unit), words\n"
     "(uint64, word_count per unit), lots ((prize_cents, pool, lengths, cell) per lot),\n"
     "orders (the robots' orders, robots bytes each)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "reference._fastlines",
                                    "Robots unit lines in C (reference._blocks).", -1, methods};

PyMODINIT_FUNC PyInit__fastlines(void) { return PyModule_Create(&module); }
