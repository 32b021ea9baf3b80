/* The one pass over a Task 1 run file that evaluation/reading.py's numpy code does in some 150 array operations:
 * split every line into its fields, check them, and hand back per row the item's place, length and hash and the
 * score, and the stretches of rows with the same topic. Built by `make install` into evaluation/_runscan.so and
 * called through ctypes (no Python API: plain arrays in, plain arrays out).
 *
 * It takes a strict part of what the numpy reader takes, and answers -1 ("not here") for anything else: a rank
 * with a leading zero or more than 8 digits, a score with an exponent or more than 15 digits, any byte outside
 * printable ASCII, tab and LF, a field too long or empty, a line with another number of fields. The numpy reader
 * then reads the file (and gives it to read_run if it has doubts of its own). So every number read here is read
 * by the same rule as there: a rank of 1 to 8 digits, no leading zero; a score of an optional sign and at most 15
 * digits with at most one dot, which is an integer below 2**53 divided by a power of ten below 10**22 (both exact
 * in a double, so one division gives the correctly rounded value: what Python's float() gives).
 *
 * The bytes come from reading.py after `_plain_text` (CRLF made LF, the trailing line ends left out of `size`).
 */
#include <stdint.h>
#include <string.h>

#define RUNSCAN_VERSION 1
#define ID_MAX 64                      /* pooling/formats/textio.py ID_MAX */
#define LINE_LIMIT ((16 << 20) - 3)    /* LINE_MAX - len(BOM) */
#define RANK_DIGITS 8
#define SCORE_CHARS 16
#define SCORE_DIGITS 15
#define MAX_COLUMNS 6

static const double POW10[SCORE_CHARS + 1] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                                              1e13, 1e14, 1e15, 1e16};

int runscan_version(void) { return RUNSCAN_VERSION; }

/* reading.py `_hash` of one id: over its bytes as little-endian 64-bit words, zero past its end, word j multiplied by
 * the j-th odd multiple of 0x9E3779B97F4A7C15 and folded with its shift by 29. A zero word adds nothing. */
static uint64_t load_le(const uint8_t *p, int64_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        return word;
    }
#endif
    uint64_t word = 0;
    for (int64_t k = 0; k < 8 && k < n; k++) word |= (uint64_t)p[k] << (8 * k);
    return word;
}

static uint64_t id_hash(const uint8_t *id, int64_t len) {
    uint64_t h = 0;
    for (int64_t j = 0; 8 * j < len; j++) {
        uint64_t word = load_le(id + 8 * j, len - 8 * j);
        uint64_t x = word * (0x9E3779B97F4A7C15ULL * (uint64_t)(2 * j + 1));
        h += x ^ (x >> 29);
    }
    return h;
}

/* Where the field starting at `pos` ends: the first byte from `pos` on that is not printable ASCII (0x21 to 0x7E),
 * or `size`. Eight bytes at a time where the machine is little-endian: a byte below 0x21 or above 0x7E sets its
 * high bit in `stop`; bytes above the first such byte may be set wrongly (a borrow or a carry), the first one never
 * is, and it is the lowest. */
static int64_t field_end(const uint8_t *data, int64_t pos, int64_t size) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    while (pos + 8 <= size) {
        uint64_t x;
        memcpy(&x, data + pos, 8);
        uint64_t stop = (((x - 0x21 * ones) & ~x) | ((x + ones) | x)) & high;
        if (stop) return pos + (__builtin_ctzll(stop) >> 3);
        pos += 8;
    }
#endif
    while (pos < size && (uint8_t)(data[pos] - 0x21) < 0x5E) pos++;
    return pos;
}

static int rank_plain(const uint8_t *p, int64_t len) {
    if (len > RANK_DIGITS || p[0] == '0') return 0;
    for (int64_t i = 0; i < len; i++)
        if ((uint8_t)(p[i] - '0') > 9) return 0;
    return 1;
}

static int score_plain(const uint8_t *p, int64_t len, double *out) {
    int minus = p[0] == '-', sign = minus || p[0] == '+';
    int64_t chars = len - sign;
    if (chars < 1 || chars > SCORE_CHARS) return 0;
    uint64_t number = 0;
    int digits = 0, dots = 0, after = 0;
    for (int64_t i = sign; i < len; i++) {
        uint8_t c = p[i];
        if (c == '.') {
            if (++dots > 1) return 0;
        } else if ((uint8_t)(c - '0') <= 9) {
            number = number * 10 + (uint64_t)(c - '0');
            digits++;
            after += dots;
        } else {
            return 0;
        }
    }
    if (digits < 1 || digits > SCORE_DIGITS) return 0;
    double value = (double)number / POW10[after];
    *out = minus ? -value : value;
    return 1;
}

/* The rows of data[0:size], each with `ncols` (5 or 6) tab-separated fields, the item in field `doc_col`, the rank
 * and the score after it. Per row: doc_start, doc_len, doc_hash, score; per stretch of rows with the same topic
 * (bytes equal), its first row and where its topic is. Returns the number of rows (at most max_rows) and sets
 * *stretches, or -1. */
int64_t runscan(const uint8_t *data, int64_t size, int32_t ncols, int32_t doc_col, int64_t max_rows,
                int64_t *doc_start, int64_t *doc_len, uint64_t *doc_hash, double *score,
                int64_t *stretch_first, int64_t *stretch_start, int64_t *stretch_len, int64_t *stretches) {
    if (ncols < doc_col + 3 || ncols > MAX_COLUMNS || doc_col < 1) return -1;
    int64_t pos = 0, row = 0, count = 0, topic_at = 0, topic_len = 0;
    while (pos < size) {
        if (row >= max_rows) return -1;
        int64_t line = pos, start[MAX_COLUMNS], end[MAX_COLUMNS];
        int32_t col = 0;
        for (;;) {
            int64_t a = pos;
            pos = field_end(data, pos, size);
            if (pos == a || col == ncols) return -1;
            start[col] = a;
            end[col++] = pos;
            if (pos == size) break;
            uint8_t c = data[pos++];
            if (c == '\n') break;
            if (c != '\t') return -1;
        }
        if (col != ncols || end[ncols - 1] - line > LINE_LIMIT) return -1;
        int64_t tlen = end[0] - start[0], dlen = end[doc_col] - start[doc_col];
        if (tlen > ID_MAX || dlen > ID_MAX) return -1;
        if (!rank_plain(data + start[doc_col + 1], end[doc_col + 1] - start[doc_col + 1])) return -1;
        if (!score_plain(data + start[doc_col + 2], end[doc_col + 2] - start[doc_col + 2], &score[row])) return -1;
        doc_start[row] = start[doc_col];
        doc_len[row] = dlen;
        doc_hash[row] = id_hash(data + start[doc_col], dlen);
        if (!row || tlen != topic_len || memcmp(data + start[0], data + topic_at, (size_t)tlen) != 0) {
            stretch_first[count] = row;
            stretch_start[count] = start[0];
            stretch_len[count++] = tlen;
        }
        topic_at = start[0];
        topic_len = tlen;
        row++;
    }
    *stretches = count;
    return row;
}

/* The judged rows and the repeated keys of a scanned file, as reading.py's `_judged_part` and `_repeating_topics`
 * find them with numpy. Per stretch (from runscan): its topic's number in the qrels (-1: not there) and its topic's
 * hash. A row's key is its item's hash plus its topic's; it is judged when the key is in `keys` (sorted, with the
 * bucket index `buckets` over their top `bits` bits) and the judged item there has the row's topic, length and
 * bytes (`item_bytes`: ID_MAX bytes a judged key, zero past the item's end). Writes the judged rows and their index
 * in `keys` (in row order), and the rows of known topics whose key an earlier such row has; returns the number of
 * judged rows and sets *repeated_count, or returns -1. `table` (2**table_bits keys) and `used` (2**table_bits bytes,
 * zero) are scratch space, 2**table_bits at least twice `rows`. */
int64_t runscan_judged(const uint8_t *data, int64_t rows, const int64_t *doc_start, const int64_t *doc_len,
                       const uint64_t *doc_hash, int64_t stretches, const int64_t *stretch_first,
                       const int64_t *stretch_topic, const uint64_t *stretch_hash,
                       int64_t judged, const uint64_t *keys, const int32_t *buckets, int32_t bits,
                       const int64_t *item_topics, const int64_t *item_lengths, const uint8_t *item_bytes,
                       uint64_t *table, uint8_t *used, int32_t table_bits,
                       int64_t *judged_rows, int64_t *judged_items, int64_t *repeated, int64_t *repeated_count) {
    if (bits < 1 || bits > 40 || table_bits < 1 || table_bits > 40 || ((int64_t)1 << table_bits) < 2 * rows)
        return -1;
    uint64_t mask = ((uint64_t)1 << table_bits) - 1;
    int64_t found = 0, repeats = 0;
    for (int64_t s = 0; s < stretches; s++) {
        int64_t topic = stretch_topic[s], last = s + 1 < stretches ? stretch_first[s + 1] : rows;
        if (topic < 0) continue;
        for (int64_t row = stretch_first[s]; row < last; row++) {
            uint64_t key = doc_hash[row] + stretch_hash[s];
            uint64_t at = (key * 0x9E3779B97F4A7C15ULL) >> (64 - table_bits);
            while (used[at] && table[at] != key) at = (at + 1) & mask;
            if (used[at]) {
                repeated[repeats++] = row;
            } else {
                used[at] = 1;
                table[at] = key;
            }
            if (!judged) continue;
            uint64_t bucket = key >> (64 - bits);
            for (int64_t i = buckets[bucket]; i < buckets[bucket + 1]; i++) {
                if (keys[i] != key) continue;
                if (item_topics[i] == topic && item_lengths[i] == doc_len[row]
                    && memcmp(item_bytes + i * ID_MAX, data + doc_start[row], (size_t)doc_len[row]) == 0) {
                    judged_rows[found] = row;
                    judged_items[found++] = i;
                }
                break;
            }
        }
    }
    *repeated_count = repeats;
    return found;
}
