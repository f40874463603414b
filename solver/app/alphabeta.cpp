// A plain exact alpha-beta for Ataxx under the uai rules: the baseline the bench measures the
// solver against (solver/app/bench.py builds it with g++ -O2 into a cache directory and runs it
// beside the solver on the same positions, in the same run). Never imported by the package.
//
// The rules (SPEC, `uai`): a board of at most 64 squares with blocks, read from a FEN; a clone
// fills a square next to one of the mover's pieces, a jump moves a piece two squares away (in
// king steps); the pieces next to the destination change sides. A mover without a move passes.
// The game is over when a side has no pieces, when no empty square is within reach of any
// piece (both scored by the pieces: the mover's minus the other's), or when the halfmove clock
// (reset by a clone, one more for a jump or a pass) reaches 100: a draw (0).
//
// The search: fail-soft negamax alpha-beta on the value alone (no depth), a transposition table
// keyed on the board, the side to move's pieces and the clock (bounds stored with their move),
// the table's move first, then the moves by the pieces they take, clones before jumps. A
// position's value is found by two null-window tests (is it at least 1? at most -1? : the
// outcome) and then MTD(f) (null-window tests from the last bound until the bounds meet).
//
// Usage:
//   alphabeta perft FEN DEPTH       leaves at each depth 1..DEPTH (a forced pass is a move; a
//                                   finished game counts 1 at depth 0 and 0 deeper)
//   alphabeta solve [SECONDS [TABLE_MIB]]
//                                   FEN lines on standard input; one JSON object a line on
//                                   standard output: lower, upper (the value's proved bounds,
//                                   for the side to move), exact, outcome_seconds,
//                                   exact_seconds, seconds (wall), cpu (seconds), nodes
//                                   (positions entered: every move made, and the root),
//                                   peak_bytes (the process's peak resident memory so far)
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

typedef uint64_t u64;

static int R = 7, C = 7, N = 49;
static u64 PLAYABLE = 0;
static u64 ADJ[64], JMP[64], REACH[64];
static const int CLOCK_LIMIT = 100;

static inline int pop(u64 b) { return __builtin_popcountll(b); }
static inline int low(u64 b) { return __builtin_ctzll(b); }

static void geometry(u64 blocks) {
    N = R * C;
    PLAYABLE = (N == 64 ? ~0ULL : ((1ULL << N) - 1)) & ~blocks;
    for (int s = 0; s < N; s++) {
        int r = s / C, c = s % C;
        u64 a = 0, j = 0;
        for (int dr = -2; dr <= 2; dr++)
            for (int dc = -2; dc <= 2; dc++) {
                int rr = r + dr, cc = c + dc;
                if ((dr == 0 && dc == 0) || rr < 0 || rr >= R || cc < 0 || cc >= C) continue;
                u64 bit = 1ULL << (rr * C + cc);
                if (!(bit & PLAYABLE)) continue;
                if (std::abs(dr) <= 1 && std::abs(dc) <= 1) a |= bit; else j |= bit;
            }
        ADJ[s] = a;
        JMP[s] = j;
        REACH[s] = a | j;
    }
}

struct Pos {
    u64 me, them;
    int clock;
};

// Parses "ranks side clock [move]"; returns false on anything else.
static bool parse_fen(const std::string& text, Pos& p) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isspace((unsigned char)text[i])) i++;
        size_t j = i;
        while (j < text.size() && !isspace((unsigned char)text[j])) j++;
        if (j > i) parts.push_back(text.substr(i, j - i));
        i = j;
    }
    if (parts.empty()) return false;
    if (parts[0] == "startpos") {
        parts[0] = "x5o/7/7/7/7/7/o5x";
        if (parts.size() == 1) { parts.push_back("x"); parts.push_back("0"); }
    }
    std::vector<std::string> ranks;
    std::string cur;
    for (char ch : parts[0]) {
        if (ch == '/') { ranks.push_back(cur); cur.clear(); } else cur += ch;
    }
    ranks.push_back(cur);
    int rows = (int)ranks.size(), cols = -1;
    u64 x = 0, o = 0, blocks = 0;
    std::vector<std::vector<char>> grid;
    for (auto& rk : ranks) {
        std::vector<char> row;
        for (size_t k = 0; k < rk.size(); k++) {
            char ch = rk[k];
            if (isdigit((unsigned char)ch)) {
                int n = ch - '0';
                if (k + 1 < rk.size() && isdigit((unsigned char)rk[k + 1])) n = n * 10 + (rk[++k] - '0');
                for (int q = 0; q < n; q++) row.push_back('.');
            } else if (ch == 'x' || ch == 'X' || ch == 'o' || ch == 'O' || ch == '-') {
                row.push_back((char)tolower(ch));
            } else {
                return false;
            }
        }
        if (cols < 0) cols = (int)row.size();
        if ((int)row.size() != cols || cols == 0) return false;
        grid.push_back(row);
    }
    if (rows * cols > 64) return false;
    R = rows;
    C = cols;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            u64 bit = 1ULL << (r * C + c);
            char ch = grid[r][c];
            if (ch == 'x') x |= bit; else if (ch == 'o') o |= bit; else if (ch == '-') blocks |= bit;
        }
    geometry(blocks);
    bool xmove = parts.size() < 2 || parts[1] == "x" || parts[1] == "X";
    if (parts.size() >= 2 && !xmove && parts[1] != "o" && parts[1] != "O") return false;
    p.me = xmove ? x : o;
    p.them = xmove ? o : x;
    p.clock = parts.size() >= 3 ? atoi(parts[2].c_str()) : 0;
    return true;
}

// Game over? Then *score is the mover's result.
static inline bool over(const Pos& p, int* score) {
    if (!p.me || !p.them) { *score = pop(p.me) - pop(p.them); return true; }
    u64 pieces = p.me | p.them, e = PLAYABLE & ~pieces;
    bool moves = false;
    while (e) {
        if (REACH[low(e)] & pieces) { moves = true; break; }
        e &= e - 1;
    }
    if (!moves) { *score = pop(p.me) - pop(p.them); return true; }
    if (p.clock >= CLOCK_LIMIT) { *score = 0; return true; }
    return false;
}

// Moves: to | (from + 1) << 6 for a jump (from 0 for a clone); PASS when there is none.
static const int PASS = 0xFFFF;

static inline int gen(const Pos& p, int* out) {
    int n = 0;
    u64 e = PLAYABLE & ~(p.me | p.them);
    while (e) {
        int to = low(e);
        e &= e - 1;
        if (ADJ[to] & p.me) out[n++] = to;
        u64 f = JMP[to] & p.me;
        while (f) {
            out[n++] = to | ((low(f) + 1) << 6);
            f &= f - 1;
        }
    }
    return n;
}

static inline Pos make(const Pos& p, int mv) {
    Pos q;
    if (mv == PASS) { q.me = p.them; q.them = p.me; q.clock = p.clock + 1; return q; }
    int to = mv & 63, from = (mv >> 6) - 1;
    u64 me = p.me, bit = 1ULL << to;
    if (from >= 0) me ^= 1ULL << from;
    u64 flips = ADJ[to] & p.them;
    q.me = p.them ^ flips;
    q.them = me | bit | flips;
    q.clock = from >= 0 ? p.clock + 1 : 0;
    return q;
}

static inline bool legal(const Pos& p, int mv) {
    if (mv == PASS) return false;
    int to = mv & 63, from = (mv >> 6) - 1;
    u64 bit = 1ULL << to;
    if (!(PLAYABLE & bit) || ((p.me | p.them) & bit)) return false;
    if (from < 0) return (ADJ[to] & p.me) != 0;
    return ((p.me >> from) & 1) && ((JMP[to] >> from) & 1);
}

// -- perft --------------------------------------------------------------------------------------

static u64 perft(const Pos& p, int depth) {
    int score;
    if (over(p, &score)) return depth == 0 ? 1 : 0;
    if (depth == 0) return 1;
    int moves[1024];
    int n = gen(p, moves);
    if (n == 0) return perft(make(p, PASS), depth - 1);
    if (depth == 1) return n;
    u64 total = 0;
    for (int k = 0; k < n; k++) total += perft(make(p, moves[k]), depth - 1);
    return total;
}

// -- the transposition table ----------------------------------------------------------------------

struct Entry {
    u64 me, them;
    int16_t lo, hi;
    uint16_t move;
    uint8_t clock, used;
};

static std::vector<Entry> TT;
static u64 TTMASK = 0;

static inline u64 hash_of(const Pos& p) {
    u64 h = p.me * 0x9E3779B97F4A7C15ULL;
    h ^= (p.them + (u64)p.clock * 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    return h;
}

// -- the search ---------------------------------------------------------------------------------

static u64 NODES = 0;
static bool ABORTED = false;
static std::chrono::steady_clock::time_point DEADLINE;
static bool HAS_DEADLINE = false;
static const int INF = 1000;
static int MOVESTACK[1 << 20];

static int search(const Pos& p, int alpha, int beta, int sp) {
    int score;
    ++NODES;  // every position entered, finished ones too (the solver's count: every move made)
    if (over(p, &score)) return score;
    if ((NODES & 4095) == 0 && HAS_DEADLINE && std::chrono::steady_clock::now() >= DEADLINE) ABORTED = true;
    if (ABORTED) return 0;
    Entry& en = TT[hash_of(p) & TTMASK];
    int ttmove = PASS;
    bool hit = en.used && en.me == p.me && en.them == p.them && en.clock == p.clock;
    if (hit) {
        if (en.lo >= beta) return en.lo;
        if (en.hi <= alpha) return en.hi;
        if (en.lo == en.hi) return en.lo;
        if (en.lo > alpha) alpha = en.lo;
        if (en.hi < beta) beta = en.hi;
        ttmove = en.move;
    }
    int a0 = alpha, b0 = beta;
    int* moves = MOVESTACK + sp;
    int n = gen(p, moves);
    int best = -INF, bestmove = PASS;
    if (n == 0) {
        best = -search(make(p, PASS), -beta, -alpha, sp);
    } else {
        if (sp + 2 * n + 1024 > (int)(sizeof(MOVESTACK) / sizeof(int))) { ABORTED = true; return 0; }
        int* keys = moves + n;
        for (int k = 0; k < n; k++) {
            int mv = moves[k], to = mv & 63;
            int key = 16 * pop(ADJ[to] & p.them) + ((mv >> 6) ? 0 : 8);
            keys[k] = mv == ttmove ? 1 << 20 : key;
        }
        for (int k = 0; k < n; k++) {
            int j = k;
            for (int q = k + 1; q < n; q++)
                if (keys[q] > keys[j]) j = q;
            int mv = moves[j];
            moves[j] = moves[k]; moves[k] = mv;
            int kj = keys[j]; keys[j] = keys[k]; keys[k] = kj;
            int v = -search(make(p, mv), -beta, -std::max(alpha, best), sp + 2 * n);
            if (ABORTED) return 0;
            if (v > best) {
                best = v;
                bestmove = mv;
                if (v >= beta) break;
            }
        }
    }
    if (ABORTED) return 0;
    // store: a fail-high is a lower bound, a fail-low an upper bound, otherwise exact
    if (!hit) { en.me = p.me; en.them = p.them; en.clock = (uint8_t)p.clock; en.lo = -INF; en.hi = INF; en.used = 1; }
    if (best >= b0) en.lo = (int16_t)best;
    else if (best <= a0) en.hi = (int16_t)best;
    else { en.lo = en.hi = (int16_t)best; }
    if (best > a0) en.move = (uint16_t)bestmove;
    else if (!hit) en.move = PASS;
    return best;
}

// The peak of this process's resident memory (VmHWM; 0 where /proc does not say).
static long long peak_bytes() {
    FILE* f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kib = atoll(line + 6);
    fclose(f);
    return kib * 1024;
}

static double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
    if (argc >= 4 && std::string(argv[1]) == "perft") {
        Pos p;
        if (!parse_fen(argv[2], p)) { fprintf(stderr, "alphabeta: not a FEN: %s\n", argv[2]); return 2; }
        int depth = atoi(argv[3]);
        for (int d = 1; d <= depth; d++) printf("%s%llu", d > 1 ? " " : "", (unsigned long long)perft(p, d));
        printf("\n");
        return 0;
    }
    if (argc >= 2 && std::string(argv[1]) == "solve") {
        double seconds = argc >= 3 ? atof(argv[2]) : 0.0;
        long mib = argc >= 4 ? atol(argv[3]) : 256;
        u64 entries = 1;
        while (entries * 2 * sizeof(Entry) <= (u64)mib << 20) entries *= 2;
        std::string line;
        while (std::getline(std::cin, line)) {
            Pos p;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            if (!parse_fen(line, p)) { fprintf(stderr, "alphabeta: not a FEN: %s\n", line.c_str()); return 2; }
            TT.assign(entries, Entry{0, 0, 0, 0, 0, 0, 0});
            TTMASK = entries - 1;
            NODES = 0;
            ABORTED = false;
            auto t0 = std::chrono::steady_clock::now();
            std::clock_t c0 = std::clock();
            HAS_DEADLINE = seconds > 0;
            DEADLINE = t0 + std::chrono::microseconds((long long)(seconds * 1e6));
            int lo = -N, hi = N;
            double outcome_s = -1, exact_s = -1;
            // the outcome: at least a win? else at least a draw?
            int v = search(p, 0, 1, 0);
            if (!ABORTED) {
                if (v >= 1) lo = v; else hi = v;
                if (v < 1) {
                    int w = search(p, -1, 0, 0);
                    if (!ABORTED) { if (w >= 0) lo = w; else hi = w; }
                }
                if (!ABORTED) outcome_s = since(t0);
            }
            // MTD(f): null-window tests from the nearest bound until the bounds meet
            int guess = v;
            while (!ABORTED && lo < hi) {
                int b = guess <= lo ? lo + 1 : (guess > hi ? hi : guess);
                int g = search(p, b - 1, b, 0);
                if (ABORTED) break;
                if (g >= b) lo = g; else hi = g;
                guess = g;
            }
            if (!ABORTED) exact_s = since(t0);
            double total = since(t0), cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
            printf("{\"lower\": %d, \"upper\": %d, \"exact\": %s, \"outcome_seconds\": %s, \"exact_seconds\": %s, "
                   "\"seconds\": %.6f, \"cpu\": %.6f, \"nodes\": %llu, \"peak_bytes\": %lld}\n",
                   lo, hi, lo == hi ? "true" : "false",
                   outcome_s < 0 ? "null" : std::to_string(outcome_s).c_str(),
                   exact_s < 0 || lo != hi ? "null" : std::to_string(exact_s).c_str(), total, cpu,
                   (unsigned long long)NODES, peak_bytes());
            fflush(stdout);
        }
        return 0;
    }
    fprintf(stderr, "usage: alphabeta perft FEN DEPTH | alphabeta solve [SECONDS [TABLE_MIB]] < fens\n");
    return 2;
}
