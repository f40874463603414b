// How positions/libataxx-games.pgn was made: libataxx (github.com/kz04px/libataxx, commit 4226c26)
// built with cmake (-DCMAKE_BUILD_TYPE=Release); then
//   g++ -std=c++20 -O2 -I libataxx/src positions/libataxx-games.cpp libataxx/build/src/libataxx_static.a -o games
//   ./games > positions/libataxx-games.pgn
// examples/pgn.cpp of libataxx, looped: 60 random games from the start, seeds 1..60, written by
// libataxx's own PGN writer (operator<< of libataxx::pgn::PGN). Every 10th game also gets a
// comment and a variation (another legal move) at its third ply, through libataxx's Node API.
#include <cstdlib>
#include <iostream>
#include <libataxx/pgn.hpp>
#include <libataxx/position.hpp>

int main() {
    for (int seed = 1; seed <= 60; ++seed) {
        std::srand(seed);
        auto pos = libataxx::Position("startpos");
        libataxx::pgn::PGN pgn{};
        pgn.header().add("Event", "Random game " + std::to_string(seed));
        pgn.header().add("FEN", pos.get_fen());
        pgn.header().add("Black", "PlayerBlack");
        pgn.header().add("White", "PlayerWhite");
        auto *node = pgn.root();
        libataxx::Move moves[libataxx::max_moves];
        int ply = 0;
        while (!pos.is_gameover()) {
            const int num_moves = pos.legal_moves(moves);
            const int idx = std::rand() % num_moves;
            if (seed % 10 == 0 && ply == 2 && num_moves > 1) {
                node->add_comment("a comment by libataxx");
                node->add_variation(moves[(idx + 1) % num_moves]);
            }
            pos.makemove(moves[idx]);
            node = node->add_mainline(moves[idx]);
            ++ply;
        }
        switch (pos.get_result()) {
            case libataxx::Result::WhiteWin: pgn.header().add("Result", "1-0"); break;
            case libataxx::Result::BlackWin: pgn.header().add("Result", "0-1"); break;
            case libataxx::Result::Draw: pgn.header().add("Result", "1/2-1/2"); break;
            default: pgn.header().add("Result", "*"); break;
        }
        std::cout << pgn;
    }
    return 0;
}
