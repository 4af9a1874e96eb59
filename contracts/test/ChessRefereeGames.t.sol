// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @notice Real games transcribed from PGN to UCI (by python-chess 1.11.2) for full-game
/// referee tests and move-gas figures. Scores are public game records.
library RealGames {
    /// @notice Caruana,F - Pichot,A, PRO League KO Stage 2017, 2017.03.15, 1-0: 79 plies, checkmate.
    function caruanaPichot2017() internal pure returns (string memory) {
        return "e2e4 c7c5 g1f3 e7e6 d2d4 c5d4 f3d4 b8c6 b1c3 d8c7 c1e3 a7a6 d1d2 g8f6 e1c1 f8e7 f2f3 b7b5 "
            "g2g4 c6d4 e3d4 c8b7 c1b1 e8g8 h2h4 b5b4 c3a4 d7d5 e4e5 f6d7 d2e3 b7c6 a4b6 d7b6 d4b6 c7b7 "
            "b6d4 a6a5 f3f4 a5a4 f4f5 f8c8 f5f6 e7f8 f6g7 f8g7 h4h5 b4b3 c2b3 a4b3 a2a3 b7e7 f1d3 g7f8 "
            "g4g5 a8a3 b2a3 e7a3 h1h2 c6a4 g5g6 f7g6 h5g6 h7h6 g6g7 f8g7 d1g1 c8c2 g1g7 g8g7 e3h6 g7f7 "
            "h6f6 f7e8 h2h8 e8d7 f6d8 d7c6 d8c8";
    }

    /// @notice Vachier Lagrave,M - Caruana,F, Saint Louis Blitz 2019, 2019.08.14, 0-1: 134 plies, en passant, queen promotion, black wins on resignation.
    function mvlCaruana2019() internal pure returns (string memory) {
        return "e2e4 c7c5 g1f3 b8c6 c2c3 g8f6 e4e5 f6d5 f1c4 d5b6 c4b3 d7d5 e5d6 e7e6 d2d4 f8d6 e1g1 e8g8 "
            "c1g5 d8c7 d4c5 d6c5 b1d2 e6e5 d2e4 c5e7 g5e7 c7e7 d1d6 e7d6 e4d6 a7a5 a2a4 b6d7 f1e1 d7c5 "
            "b3c4 c8e6 f3e5 e6c4 d6c4 f8d8 g1f1 h7h5 c4b6 a8a6 e5c4 g7g6 a1d1 d8d1 e1d1 c6e5 c4e5 a6b6 "
            "e5c4 b6a6 d1a1 h5h4 h2h3 g8g7 f1e2 a6e6 e2d1 b7b6 f2f3 g7f6 b2b4 a5b4 c3b4 c5d3 d1d2 d3b4 "
            "a1b1 b4d5 b1b5 e6c6 d2d3 d5f4 d3d4 f4e6 d4d5 c6c7 c4b6 c7c2 d5d6 c2g2 b6d5 f6g7 a4a5 g2a2 "
            "d5b4 a2a4 a5a6 e6f4 b5b7 f4h3 a6a7 h3f2 b4c6 h4h3 c6e5 h3h2 b7f7 g7g8 f7b7 h2h1q b7b8 g8g7"
            " a7a8q a4a8 b8a8 h1d1 d6e6 d1b3 e6d6 b3b4 d6c7 b4e7 e5d7 f2d3 a8a5 d3f4 a5e5 e7f7 c7d6 f7a"
            "2 e5e7 g7h6 e7e4 a2a3 d6e5 f4h5 e5d4 a3d6";
    }

    /// @notice Kosteniuk,A - Glavina,P, Titled Tue 22nd Aug Early, 2023.08.22, 1-0: 83 plies, knight underpromotion.
    function kosteniukGlavina2023() internal pure returns (string memory) {
        return "g1f3 d7d5 g2g3 b8c6 d2d4 c8f5 f1g2 c6b4 b1a3 e7e6 e1g1 f8e7 f3e5 c7c6 f2f3 g8f6 f1e1 h7h6 "
            "e2e4 f5h7 c2c3 b4a6 a3c2 e8g8 b2b4 a6c7 a2a4 a7a5 g3g4 f6d7 e5d3 b7b5 b4a5 a8a5 c2b4 d8a8 "
            "c1f4 f8c8 f4c7 c8c7 a4b5 c6b5 a1a5 a8a5 e4d5 c7c3 d5e6 f7e6 d1e2 d7f8 d4d5 h7d3 b4d3 c3d3 "
            "d5e6 d3d6 f3f4 b5b4 f4f5 a5c5 g1h1 b4b3 g2e4 d6b6 e2b2 e7f6 b2b1 b3b2 e1d1 g8h7 h2h4 c5e5 "
            "g4g5 h6g5 h4g5 b6b3 e4g2 f6g5 f5f6 g7g6 e6e7 e5g3 e7f8n";
    }

    /// @notice Caruana,F - Vachier Lagrave,M, 7th Sinquefield Cup 2019, 2019.08.23, 1/2-1/2: 106 plies, ends in stalemate.
    function caruanaMvl2019() internal pure returns (string memory) {
        return "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6 h2h3 e7e5 d4b3 c8e6 f2f4 g7g6 f1e2 b8d7 "
            "g2g4 a8c8 f4f5 e6b3 a2b3 c8c3 b2c3 f6e4 e1g1 d8h4 e2f3 g6f5 f3e4 f5e4 g1h2 h8g8 a1a4 d7f6 "
            "g4g5 g8g5 c1g5 h4g5 c3c4 g5h4 d1e1 h4e1 f1e1 f8h6 e1d1 e8d7 c4c5 d6d5 a4b4 d7c7 b4b6 h6f4 "
            "h2g2 f6d7 d1d5 d7b6 c5b6 c7b6 d5d7 a6a5 d7f7 h7h6 g2f2 b6c6 f2e2 b7b5 f7f6 c6c5 c2c3 a5a4 "
            "b3a4 b5a4 f6a6 c5b5 a6a7 f4g5 a7a8 g5e7 e2d2 a4a3 d2e3 b5c4 e3e4 c4c3 e4e5 c3b3 e5e4 a3a2 "
            "a8a2 b3a2 e4f3 a2b3 h3h4 b3c4 h4h5 c4d3 f3g2 d3e2 g2h1 e2f2 h1h2 e7d6 h2h1 d6e5";
    }

    /// @notice Nakamura,Hi - Vachier Lagrave,M, chess.com Speed 5m+1spm 2018, 2018.10.11, 1/2-1/2: 185 plies, fifty-move rule claimable at the end.
    function nakamuraMvl2018() internal pure returns (string memory) {
        return "d2d4 g8f6 c2c4 g7g6 b1c3 d7d5 c4d5 f6d5 e2e4 d5c3 b2c3 f8g7 c1g5 c7c5 a1c1 c5d4 c3d4 b8c6 "
            "d4d5 c6d4 g5e3 e7e5 f1c4 e8g8 g1e2 d8h4 e2g3 f7f5 e4f5 g6f5 d1h5 h4f6 e3g5 f6g6 e1g1 b7b5 "
            "c4b3 f5f4 h5g6 h7g6 g3e4 d4e2 g1h1 e2c1 f1c1 c8f5 e4d6 g7f6 h2h4 a8d8 c1c6 f6g5 h4g5 e5e4 "
            "h1g1 e4e3 d6f5 f8f5 c6g6 g8f7 g6e6 f5g5 e6e4 e3f2 g1f2 d8d6 a2a4 a7a6 a4b5 a6b5 e4b4 d6b6 "
            "f2f3 f7e7 b3c4 b6g6 c4f1 g5d5 b4b5 d5d4 b5e5 e7f6 e5e4 d4e4 f3e4 f6g5 e4f3 g6e6 f1e2 e6e3 "
            "f3f2 e3a3 e2b5 a3c3 b5d7 g5f6 d7g4 f6e5 g4h5 e5d4 h5f7 c3a3 f7g6 d4e5 g6f7 e5f5 f7e8 a3c3 "
            "e8h5 f5g5 h5e8 c3d3 e8b5 d3d5 b5c6 d5d2 f2f3 d2d3 f3e2 d3d6 c6f3 g5h4 e2f2 d6d2 f3e2 h4g5 "
            "f2f3 d2c2 e2b5 c2c3 f3f2 g5f5 b5e8 c3e3 e8d7 f5g5 d7c8 e3d3 c8e6 d3d2 f2f3 d2d6 e6c8 d6d3 "
            "f3f2 g5f6 c8g4 f6e5 g4h5 d3d2 f2f3 d2a2 h5f7 a2a3 f3f2 a3a7 f7h5 e5f5 h5e8 a7a2 f2f3 a2a3 "
            "f3f2 a3c3 e8h5 c3c2 f2f3 f5g5 h5e8 c2d2 e8b5 d2d5 b5c4 d5e5 c4a6 e5e3 f3f2 e3c3 a6b5 g5f5 "
            "b5e8 f5g4 e8d7 g4g5 d7e8";
    }

    /// @notice fastchess - feeks, ?, 2019.08.19, 1/2-1/2: 54 plies, engine game ending in a threefold repetition.
    function engineThreefold() internal pure returns (string memory) {
        return "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1 c8g4 d2d3 g4f3 d1f3 f7f6 f1d1 g7g6 c1e3 b7b6 "
            "b1d2 a8a7 f3h3 d8a8 c2c4 a6a5 f2f4 e5f4 e3f4 f8c5 g1h1 c5f8 d2b3 e8e7 d3d4 g6g5 f4g3 a5a4 "
            "b3d2 a4a3 b2a3 a7a3 d2b3 a3a2 a1a2 a8a2 g3c7 a2a7 c7g3 a7a4 g3c7 a4a7 c7g3 a7a4 g3c7 a4a7";
    }

    /// @notice The 16 hardest real checkmates for mate detection among the 484 mates of the
    /// masters, TWIC 920 and lichess samples: the mated side has the most pseudo-legal moves
    /// (49-61) to refute. Each entry: FEN before the mate, the mating move (UCI).
    function hardMates() internal pure returns (string[16] memory fens, string[16] memory mates) {
        // Dahl,M - Feshir,M, 2012.05.21 (twic0920.pgn), mated side has 61 pseudo-legal moves
        fens[0] = "4Q3/5Ppk/p5np/1pn5/3r4/1BP2q1P/Pr4PK/R7 w - - 0 33";
        mates[0] = "e8g8";
        // Vandelay-Industries - Stalkfishy, 2025.05.01 (lichess_2025-05_sample.pgn), mated side has 57 pseudo-legal moves
        fens[1] = "r4rk1/pbpnb1p1/1p2p2p/3q2N1/7P/2P5/PPQNBPP1/R3K2R w KQ - 0 18";
        mates[1] = "c2h7";
        // Divis,Jiri - Bilek,B, 2012.06.20 (twic0920.pgn), mated side has 56 pseudo-legal moves
        fens[2] = "2r2r2/pp6/4b1p1/6k1/P2Q4/2P3K1/1q4P1/1B5R w - - 2 35";
        mates[2] = "d4h4";
        // Daviiddddd - falom42, 2025.05.01 (lichess_2025-05_sample.pgn), mated side has 55 pseudo-legal moves
        fens[3] = "7R/pp4k1/5r2/2Q3b1/4N1p1/1P3qPp/P6P/4R1K1 b - - 3 32";
        mates[3] = "f3g2";
        // nemoku_losti - Davidalfil10, 2025.05.01 (lichess_2025-05_sample.pgn), mated side has 53 pseudo-legal moves
        fens[4] = "r4rk1/pbp5/1p2p3/n2qNpB1/3P4/2PB4/PP4PP/R2Q1RK1 b - - 0 17";
        mates[4] = "d5g2";
        // Koneru,H - Bacrot,E, 2006.10.29 (masters_sample.pgn), mated side has 53 pseudo-legal moves
        fens[5] = "5rk1/7p/1pBbp1p1/p2p4/7n/PP1QPqRP/1B3P1K/2R5 b - - 11 30";
        mates[5] = "f3g2";
        // Paterek,M - Jobava,Ba, 2023.01.31 (masters_sample.pgn), mated side has 52 pseudo-legal moves
        fens[6] = "6rk/2q2p1p/p6r/P2P1B2/2p1P3/Q2R1n1P/4N1P1/1R5K b - - 0 34";
        mates[6] = "c7h2";
        // Krasenkow,M - Kopylov,Daniel, 2023.12.02 (masters_sample.pgn), mated side has 51 pseudo-legal moves
        fens[7] = "r7/pR3Q2/2p3pB/3n4/PP2kn2/6qP/3Qr1P1/3R2K1 w - - 8 44";
        mates[7] = "d2d4";
        // Ye Jiangchuan - Damaso, Rui, 1996.??.?? (masters_sample.pgn), mated side has 50 pseudo-legal moves
        fens[8] = "2kr3r/2p2p2/4p3/3P4/2q5/Q1P1BnP1/P5K1/1R1R2n1 b - - 1 29";
        mates[8] = "h8h2";
        // Mason, James - Chigorin, Mikhail, 1900.??.?? (masters_sample.pgn), mated side has 50 pseudo-legal moves
        fens[9] = "1r4k1/2p2ppp/8/1qP5/4Q3/R1P2P2/4N1PP/K6R b - - 0 28";
        mates[9] = "b5b2";
        // Roessler,U - Kosteniuk,A, 2023.10.14 (masters_sample.pgn), mated side has 49 pseudo-legal moves
        fens[10] = "7k/1pp4p/3r1np1/p3Q1N1/1q4bP/4K1P1/1P3P2/1BR5 b - - 5 33";
        mates[10] = "b4d2";
        // Begmuratov,Khumoyun - Bacrot,E, 2022.11.22 (masters_sample.pgn), mated side has 49 pseudo-legal moves
        fens[11] = "5rk1/4R2p/1p3npQ/p1n3N1/2b5/6NP/1qP3PK/8 w - - 0 36";
        mates[11] = "h6g7";
        // Li Haoyu - Wang Hao, 1999.10.31 (masters_sample.pgn), mated side has 49 pseudo-legal moves
        fens[12] = "4rk2/p3q1pp/brnBQn2/2pB2b1/1p5P/2PP2P1/PP3P2/R3R1K1 w - - 1 23";
        mates[12] = "e6f7";
        // Glucksberg - Najdorf, Miguel, 1935.??.?? (masters_sample.pgn), mated side has 48 pseudo-legal moves
        fens[13] = "r4rk1/pp4pp/2p5/3pP1N1/2P3K1/3B2P1/PP5q/R1BQ1RN1 b - - 0 22";
        mates[13] = "h7h5";
        // Van Wely, Loek - Hansen, Curt, 1992.??.?? (masters_sample.pgn), mated side has 48 pseudo-legal moves
        fens[14] = "Q7/6pk/4p2p/2Q1P3/1p2b3/4B1PP/5P1K/3r3R b - - 0 44";
        mates[14] = "d1h1";
        // Tan Zhongyi - Muzychuk,M, 2020.12.04 (masters_sample.pgn), mated side has 48 pseudo-legal moves
        fens[15] = "2r2k2/1p4b1/p3PN2/1q3P1p/3p1B2/5PQ1/PPr3P1/1K5R w - - 1 29";
        mates[15] = "f4d6";
    }
}
