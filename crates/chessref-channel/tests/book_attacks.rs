//! A second reader's attacks on the book that checks each frame against the latest
//! verified move only (issue 30): every frame a cheater can make from a real game's
//! frames (tampered, grafted signatures, replayed from another game, out of order, after
//! the end, after a refused one, across a restart) is refused and changes nothing, and
//! every frame the book takes leaves a transcript that verifies whole, as the relay that
//! checked the whole game on every message required. A passing test is a refused attack.

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::book::frames_of;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::frame::{ReceiptFrame, ResultHalf, SignedPosition};
use chessref_channel::messages::Message;
use chessref_channel::signer::{delegate, sign_delegated};
use chessref_channel::transcript::Side;
use chessref_channel::transcript::receipt_of;
use chessref_channel::{
    Accepted, Book, ChannelDomain, ChannelGame, Frame, NoPins, Refusal, Transcript,
};
use chessref_core::{Color, Move as ChessMove};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const T0: u64 = 1_800_000_000;
/// When frames reach the book: every move below is stamped within 30 s before it.
const AT: u64 = T0 + 30;

fn key(label: &str) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&keccak256(label)).expect("a key")
}

fn domain() -> ChannelDomain {
    ChannelDomain {
        chain_id: 5,
        verifying_contract: Address::repeat_byte(9),
    }
}

fn terms(game_id: u64) -> ChannelGame {
    ChannelGame {
        game_id: U256::from(game_id),
        white: key("white").address(),
        black: key("black").address(),
        initial_time: 60,
        increment: 1,
        response_window: 600,
        start_state: None,
    }
}

/// Game `game_id`, both players on session keys (the same keys in every game).
fn game(game_id: u64) -> OffChainGame {
    let (domain, terms) = (domain(), terms(game_id));
    let expires = terms.key_expiry(T0, 100);
    let white = Seat::with_session(key("white"), key("white session"), &domain, &terms, expires)
        .expect("signing");
    let black = Seat::with_session(key("black"), key("black session"), &domain, &terms, expires)
        .expect("signing");
    OffChainGame::new(domain, terms, white, black).expect("start")
}

/// Plays `ucis` from ply `g.last().ply + 1`, 2 s apart from `from`, each acknowledged 1 s
/// later.
fn play(g: &mut OffChainGame, ucis: &[&str], from: u64) {
    for (i, uci) in ucis.iter().enumerate() {
        let at = from + 2 * i as u64;
        g.play(ChessMove::from_uci(uci).expect("uci"), at)
            .expect("legal");
        g.receipt(at + 1).expect("signing");
    }
}

fn book_of(g: &OffChainGame) -> Book {
    Book::new(g.domain, g.game.clone())
}

/// The book's transcript verifies whole, every signature checked, at `now`: what the
/// relay that checked the whole game on every message required of each frame it took.
fn verifies_whole(book: &Book, now: u64) {
    let report = book.transcript().verify(&NoPins, now).expect("a start");
    assert_eq!(
        report.error, None,
        "the book took a frame the whole game refuses"
    );
    assert_eq!(report.valid_plies, book.ply());
}

/// A book read back from `book`'s frames, as a restarted relay reads its store.
fn restarted(book: &Book, now: u64) -> Book {
    let t = book.transcript();
    let mut fresh = Book::new(t.domain, t.game.clone());
    for (i, frame) in book.frames().iter().enumerate() {
        assert_eq!(
            fresh.accept(frame.clone(), now),
            Ok(Accepted::New(i as u64 + 1)),
            "a held frame refused after a restart"
        );
    }
    assert_eq!(fresh.transcript(), book.transcript());
    assert_eq!(fresh.ended(), book.ended());
    fresh
}

/// Offers `frame` to `book` and checks the answer keeps the book sound: a new frame
/// leaves a transcript that verifies whole; a duplicate or a refusal changes nothing,
/// and a refused frame sent again is refused again the same way (never a duplicate).
fn judged(book: &mut Book, frame: &Frame, now: u64) -> Result<Accepted, Refusal> {
    let (transcript, frames) = (book.transcript().clone(), book.frames().to_vec());
    let answer = book.accept(frame.clone(), now);
    match &answer {
        Ok(Accepted::New(seq)) => {
            assert_eq!(*seq as usize, frames.len() + 1);
            assert_eq!(book.frames().last(), Some(frame));
            verifies_whole(book, now);
        }
        Ok(Accepted::Duplicate(seq)) => {
            assert_eq!(&frames[*seq as usize - 1], frame);
            assert_eq!(book.transcript(), &transcript);
            assert_eq!(book.frames(), frames.as_slice());
        }
        Err(refusal) => {
            assert_eq!(
                book.transcript(),
                &transcript,
                "{refusal}: the book changed"
            );
            assert_eq!(book.frames(), frames.as_slice(), "{refusal}: a frame kept");
            assert_eq!(
                book.accept(frame.clone(), now),
                answer,
                "a refused frame answered otherwise the second time"
            );
        }
    }
    answer
}

/// `judged`, and it must be refused.
fn refused(book: &mut Book, frame: &Frame, now: u64) -> Refusal {
    judged(book, frame, now).expect_err("an attack was accepted")
}

/// `judged`, and it must be new.
fn taken(book: &mut Book, frame: &Frame, now: u64) {
    let answer = judged(book, frame, now);
    assert!(
        matches!(answer, Ok(Accepted::New(_))),
        "an honest {} refused: {answer:?}",
        frame.kind()
    );
}

fn signature_mut(frame: &mut Frame) -> &mut Bytes {
    match frame {
        Frame::Delegation(d) => &mut d.signature,
        Frame::Move(m) => &mut m.signature,
        Frame::Receipt(r) => &mut r.signature,
        Frame::DrawOffer(o) => &mut o.signature,
        Frame::Resignation(r) => &mut r.signed.signature,
        Frame::Result(r) => &mut r.signature,
    }
}

fn delegation_mut(frame: &mut Frame) -> &mut i64 {
    match frame {
        Frame::Delegation(_) => unreachable!("a delegation names none"),
        Frame::Move(m) => &mut m.delegation,
        Frame::Receipt(r) => &mut r.delegation,
        Frame::DrawOffer(o) => &mut o.delegation,
        Frame::Resignation(r) => &mut r.signed.delegation,
        Frame::Result(r) => &mut r.delegation,
    }
}

/// Everything a cheater makes of one honest frame: its signature bit-flipped, with v
/// flipped, high-s; each signed field changed under the same signature; another
/// delegation named; the other side named.
fn mutations(frame: &Frame) -> Vec<Frame> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(&mut Frame)| {
        let mut m = frame.clone();
        f(&mut m);
        m
    };
    out.push(with(&|m| {
        let s = signature_mut(m);
        let mut b = s.to_vec();
        b[10] ^= 1;
        *s = b.into();
    }));
    out.push(with(&|m| {
        let s = signature_mut(m);
        let mut b = s.to_vec();
        b[64] ^= 27 ^ 28;
        *s = b.into();
    }));
    out.push(with(&|m| {
        // The other valid-looking s: n - s with v flipped (refused as high s).
        const ORDER: U256 = U256::from_be_bytes([
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c,
            0xd0, 0x36, 0x41, 0x41,
        ]);
        let s = signature_mut(m);
        let mut b = s.to_vec();
        let high = ORDER - U256::from_be_slice(&b[32..64]);
        b[32..64].copy_from_slice(&high.to_be_bytes::<32>());
        b[64] ^= 27 ^ 28;
        *s = b.into();
    }));
    if !matches!(frame, Frame::Delegation(_)) {
        for delta in [-1i64, 1, 2] {
            out.push(with(&|m| {
                let d = delegation_mut(m);
                *d = (*d + delta).max(-1);
            }));
        }
    }
    match frame {
        Frame::Delegation(_) => {
            out.push(with(&|m| {
                if let Frame::Delegation(d) = m {
                    d.player = d.player.opponent();
                }
            }));
            out.push(with(&|m| {
                if let Frame::Delegation(d) = m {
                    d.first_ply = 0;
                }
            }));
            out.push(with(&|m| {
                if let Frame::Delegation(d) = m {
                    d.expires += 1_000_000;
                }
            }));
            out.push(with(&|m| {
                if let Frame::Delegation(d) = m {
                    d.session_key = key("mallory").address();
                }
            }));
            out.push(with(&|m| {
                if let Frame::Delegation(d) = m {
                    d.game_id += U256::from(1);
                }
            }));
        }
        Frame::Move(_) => {
            out.push(with(&|m| {
                if let Frame::Move(m) = m {
                    m.timestamp += 1;
                }
            }));
            out.push(with(&|m| {
                if let Frame::Move(m) = m {
                    m.white_time += 1;
                }
            }));
            out.push(with(&|m| {
                if let Frame::Move(m) = m {
                    m.mv ^= 1;
                }
            }));
            out.push(with(&|m| {
                if let Frame::Move(m) = m {
                    m.ply += 1;
                }
            }));
            out.push(with(&|m| {
                if let Frame::Move(m) = m {
                    m.game_id += U256::from(1);
                }
            }));
        }
        Frame::Receipt(_) => {
            for delta in [-1i64, 1, 30] {
                out.push(with(&|m| {
                    if let Frame::Receipt(r) = m {
                        r.seen_at = r.seen_at.saturating_add_signed(delta);
                    }
                }));
            }
            for ply in [0, 1, 2, u32::MAX] {
                out.push(with(&|m| {
                    if let Frame::Receipt(r) = m {
                        r.ply = r.ply.wrapping_add(ply);
                    }
                }));
            }
        }
        Frame::DrawOffer(_) | Frame::Resignation(_) | Frame::Result(_) => {
            out.push(with(&|m| match m {
                Frame::DrawOffer(o) => o.by = o.by.opponent(),
                Frame::Resignation(r) => r.by = r.by.opponent(),
                Frame::Result(r) => r.by = r.by.opponent(),
                _ => unreachable!(),
            }));
            out.push(with(&|m| match m {
                Frame::DrawOffer(o) => o.position = B256::repeat_byte(7),
                Frame::Resignation(r) => r.position = B256::repeat_byte(7),
                Frame::Result(r) => r.position = B256::repeat_byte(7),
                _ => unreachable!(),
            }));
            out.push(with(&|m| match m {
                Frame::DrawOffer(o) => o.ply -= 1,
                Frame::Resignation(r) => r.ply -= 1,
                Frame::Result(r) => r.ply -= 1,
                _ => unreachable!(),
            }));
            if let Frame::Result(_) = frame {
                for result in [0u8, 1, 2, 4] {
                    out.push(with(&|m| {
                        if let Frame::Result(r) = m {
                            r.result = result;
                        }
                    }));
                }
            }
        }
    }
    out.retain(|m| m != frame);
    out
}

/// Every frame with every other frame's signature of the same kind put on it.
fn grafts(frames: &[Frame]) -> Vec<Frame> {
    let mut out = Vec::new();
    for a in frames {
        for b in frames {
            if a != b && a.kind() == b.kind() && a.signature() != b.signature() {
                let mut g = a.clone();
                *signature_mut(&mut g) = b.signature().clone();
                out.push(g);
            }
        }
    }
    out
}

/// A game of 12 plies, both on session keys, black rotating to a second key at ply 7,
/// then white's draw offer and a draw both sign: its frames in the order a relay takes
/// them, and the transcript they make.
fn long_game() -> (OffChainGame, Vec<Frame>, Transcript) {
    let mut g = game(11);
    play(
        &mut g,
        &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"],
        T0 + 2,
    );
    g.rotate(Color::Black, key("black session 2"), 7, T0 + 10_000)
        .expect("signing");
    play(
        &mut g,
        &["d2d3", "f8c5", "c2c3", "d7d6", "h2h3", "h7h6"],
        T0 + 14,
    );
    let agreed = g.transcript_agreed(3).expect("signing");
    let mut frames = frames_of(&agreed);
    let (offer, auth) = g.offer_draw(Color::White).expect("signing");
    assert!(auth.delegation.is_some());
    let draw = Frame::DrawOffer(SignedPosition {
        game_id: offer.gameId,
        ply: offer.ply,
        position: offer.position,
        by: Side::White,
        signature: auth.signature,
        delegation: 0,
    });
    frames.insert(frames.len() - 2, draw);
    (g, frames, agreed)
}

/// Random mixes of honest frames (in and out of their order) and every mutation and
/// graft of them: no forged frame is ever taken, every refusal changes nothing, every
/// frame taken leaves a transcript that verifies whole, the book read back after each
/// new frame (a restart) answers the same, and the honest frames in their order are
/// all taken whatever came between them (nothing the whole-game relay took is refused).
#[test]
fn test_no_mix_of_honest_and_forged_frames_gets_a_forged_one_in() {
    let (g, honest, agreed) = long_game();
    let mut attacks: Vec<Frame> = honest.iter().flat_map(mutations).collect();
    attacks.extend(grafts(&honest));
    attacks.retain(|a| !honest.contains(a));
    assert!(attacks.len() > 400, "{} attacks", attacks.len());
    for seed in 0..6u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut book = book_of(&g);
        let mut next = 0;
        let mut refusals = 0;
        let mut steps = 0;
        while next < honest.len() {
            steps += 1;
            let roll = rng.random_range(0..20);
            let frame = if roll < 1 {
                honest[next].clone()
            } else if roll < 3 {
                // An honest frame out of its order (not a delegation: a player numbers its
                // own in the order it sends them): taken or refused, never harmful.
                let f = &honest[rng.random_range(0..honest.len())];
                if matches!(f, Frame::Delegation(_)) {
                    continue;
                }
                f.clone()
            } else {
                attacks[rng.random_range(0..attacks.len())].clone()
            };
            let is_honest = honest.contains(&frame);
            match judged(&mut book, &frame, AT) {
                Ok(Accepted::New(_)) => {
                    assert!(
                        is_honest,
                        "seed {seed}: a forged frame was taken: {frame:?}"
                    );
                    book = restarted(&book, AT);
                }
                Ok(Accepted::Duplicate(_)) => assert!(is_honest),
                Err(refusal) => {
                    if frame == honest[next] {
                        // Only the draw offer, once both halves came early, may lapse.
                        assert!(
                            matches!(frame, Frame::DrawOffer(_)) && refusal.kind() == "ended",
                            "seed {seed}: honest frame {next} ({}) refused in its turn: {refusal}",
                            frame.kind()
                        );
                        next += 1;
                    }
                    refusals += 1;
                }
            }
            // The honest frame whose turn it is moves on once held.
            while next < honest.len() && book.frames().contains(&honest[next]) {
                next += 1;
            }
        }
        assert!(steps > 300, "seed {seed}: {steps} steps");
        assert!(refusals > 200, "seed {seed}: {refusals} refusals");
        assert_eq!(book.transcript(), &agreed, "seed {seed}");
        assert_eq!(book.ended(), Some("result"));
        // Nothing follows the end, not even what was refused before.
        for attack in attacks.iter().take(50) {
            refused(&mut book, attack, AT);
        }
    }
}

/// A delegation's wallet signature is checked once in the game and kept: the session
/// key's game, plies and time are still checked on every message it signs, and a
/// delegation or move of another game (the same players, the same session key) is
/// refused.
#[test]
fn test_a_kept_delegation_is_still_bound_to_its_game_plies_and_time() {
    let (domain, terms) = (domain(), terms(11));
    // Black's key delegated for `plies`, until `expires`.
    let with_black_key = |last_ply: u32, expires: u64| {
        let mut g = game(11);
        let d = delegate(
            &key("black"),
            &domain,
            terms.game_id,
            key("black session").address(),
            1,
            last_ply,
            expires,
        )
        .expect("signing");
        g.seats[1].session = Some((key("black session"), d));
        g
    };
    // Until T0 + 9: black's move of ply 4 stamped T0 + 10 is refused.
    let mut g = with_black_key(u32::MAX, T0 + 9);
    play(&mut g, &["e2e4", "e7e5", "g1f3"], T0 + 2);
    let mut book = book_of(&g);
    for frame in frames_of(&g.transcript()) {
        taken(&mut book, &frame, AT);
    }
    g.play(ChessMove::from_uci("b8c6").expect("uci"), T0 + 10)
        .expect("legal");
    let expired = frames_of(&g.transcript()).pop().expect("the move");
    let why = refused(&mut book, &expired, AT);
    assert_eq!(why.kind(), "signature", "{why}");
    assert!(why.to_string().contains("expired"), "{why}");
    // Plies 1 to 4: black's receipt of ply 5 and its move of ply 6 are refused.
    let mut g = with_black_key(4, T0 + 10_000);
    play(&mut g, &["e2e4", "e7e5", "g1f3", "b8c6"], T0 + 2);
    g.play(ChessMove::from_uci("f1c4").expect("uci"), T0 + 10)
        .expect("legal");
    let mut book = book_of(&g);
    for frame in frames_of(&g.transcript()) {
        taken(&mut book, &frame, AT);
    }
    // An honest client signs beyond its key's range with its wallet; a cheater signs
    // with the key and names its delegation.
    let (session, d) = g.seat(Color::Black).session.clone().expect("a key");
    let receipt = receipt_of(g.last(), T0 + 11);
    let auth = sign_delegated(&session, &d, &g.domain, &receipt).expect("signing");
    let frame = Frame::Receipt(ReceiptFrame {
        ply: 5,
        seen_at: T0 + 11,
        signature: auth.signature,
        delegation: 0,
    });
    let why = refused(&mut book, &frame, AT);
    assert_eq!(why.kind(), "receipt", "{why}");
    assert!(why.to_string().contains("outside"), "{why}");
    g.play(ChessMove::from_uci("g8f6").expect("uci"), T0 + 12)
        .expect("legal");
    let Some(Frame::Move(mut beyond)) = frames_of(&g.transcript()).pop() else {
        panic!("the move last")
    };
    assert_eq!(
        beyond.delegation, -1,
        "the wallet signs beyond the key's range"
    );
    beyond.signature = sign_delegated(&session, &d, &g.domain, &beyond.message())
        .expect("signing")
        .signature;
    beyond.delegation = 0;
    let why = refused(&mut book, &Frame::Move(beyond), AT);
    assert_eq!(why.kind(), "signature", "{why}");
    assert!(why.to_string().contains("ply 6"), "{why}");
    // Signed by the wallet, as the honest client does: taken.
    let honest = frames_of(&g.transcript()).pop().expect("the move");
    taken(&mut book, &honest, AT);

    // Game 12: the same players, session keys, moves and times as game 11. Each of its
    // frames, as it is and renamed for game 11, is refused where game 11's is taken.
    let mut ours = game(11);
    let mut theirs = game(12);
    for g in [&mut ours, &mut theirs] {
        play(g, &["e2e4", "e7e5", "g1f3"], T0 + 2);
    }
    let (ours, theirs) = (
        frames_of(&ours.transcript()),
        frames_of(&theirs.transcript()),
    );
    assert_eq!(ours.len(), theirs.len());
    let mut book = book_of(&game(11));
    for (mine, their) in ours.iter().zip(&theirs) {
        assert_ne!(mine, their);
        let why = refused(&mut book, their, AT);
        if !matches!(their, Frame::Receipt(_)) {
            assert_eq!(why.kind(), "game", "{}: {why}", their.kind());
        }
        let mut renamed = their.clone();
        match &mut renamed {
            Frame::Delegation(d) => d.game_id = U256::from(11),
            Frame::Move(m) => m.game_id = U256::from(11),
            _ => {}
        }
        if renamed != *their {
            let why = refused(&mut book, &renamed, AT);
            assert_eq!(why.kind(), "signature", "{}: {why}", their.kind());
        }
        taken(&mut book, mine, AT);
    }
}

/// Receipts are checked against their move, which is not checked again: a receipt
/// signature moved to another ply, one by the mover itself, one timed outside the
/// move's window (validly signed), one for a move not held: all refused; then the
/// honest one is taken, late or out of order.
#[test]
fn test_receipts_that_do_not_belong_to_their_move_are_refused() {
    let mut g = game(11);
    play(&mut g, &["e2e4", "e7e5", "g1f3"], T0 + 2);
    let frames = frames_of(&g.transcript());
    let receipts: Vec<ReceiptFrame> = frames
        .iter()
        .filter_map(|f| match f {
            Frame::Receipt(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    let mut book = book_of(&g);
    // Delegations and the moves, no receipt yet.
    for frame in frames.iter().filter(|f| !matches!(f, Frame::Receipt(_))) {
        taken(&mut book, frame, AT);
    }
    // Receipt 1's signature as receipt 3's (both by black): refused.
    let moved = ReceiptFrame {
        ply: 3,
        seen_at: receipts[2].seen_at,
        ..receipts[0].clone()
    };
    assert_eq!(
        refused(&mut book, &Frame::Receipt(moved), AT).kind(),
        "receipt"
    );
    // The mover acknowledging its own move, in time, validly signed by its key.
    let mover = {
        let mut by_white = g.clone();
        by_white.moves.truncate(2);
        let last = by_white.last().clone();
        let receipt = receipt_of(&last, last.timestamp + 1);
        let auth = by_white
            .seat(Color::White)
            .authorise(&by_white.domain, &receipt)
            .expect("signing");
        ReceiptFrame {
            ply: 1,
            seen_at: receipt.seenAt,
            signature: auth.signature,
            delegation: 0,
        }
    };
    assert_eq!(
        refused(&mut book, &Frame::Receipt(mover), AT).kind(),
        "receipt"
    );
    // Black's receipt of ply 1, signed by black's key, but timed before the move's stamp
    // and more than 30 s after it.
    for seen_at in [T0 + 1, T0 + 2 + 31] {
        let mut early = g.clone();
        early.moves.truncate(2);
        early.receipts.clear();
        early.receipt(seen_at).expect("signing");
        let frame = frames_of(&early.transcript())
            .into_iter()
            .find(|f| matches!(f, Frame::Receipt(_)))
            .expect("the receipt");
        assert_eq!(
            refused(&mut book, &frame, AT).kind(),
            "receipt",
            "{seen_at}"
        );
    }
    // A receipt of ply 4, not played, and of ply 0.
    for ply in [0, 4] {
        let frame = Frame::Receipt(ReceiptFrame {
            ply,
            ..receipts[0].clone()
        });
        let why = refused(&mut book, &frame, AT);
        assert!(["order", "delegation"].contains(&why.kind()), "{why}");
    }
    // The honest receipts, last first: each taken, then a duplicate; a second receipt
    // for a ply is refused.
    for r in receipts.iter().rev() {
        taken(&mut book, &Frame::Receipt(r.clone()), AT);
        assert!(matches!(
            judged(&mut book, &Frame::Receipt(r.clone()), AT),
            Ok(Accepted::Duplicate(_))
        ));
        let mut again = g.clone();
        again.moves.truncate(r.ply as usize + 1);
        again.receipt(r.seen_at + 1).expect("signing");
        let second = frames_of(&again.transcript())
            .into_iter()
            .rfind(|f| matches!(f, Frame::Receipt(_)))
            .expect("a receipt");
        assert_eq!(refused(&mut book, &second, AT).kind(), "order");
    }
    assert_eq!(book.transcript(), &g.transcript());
}

/// A refused frame leaves nothing behind for the next one to build on: a forged
/// delegation is not there for a move to name, a refused move is not there for a receipt,
/// a draw offer or a resignation to name, a forged second result half does not end the
/// game nor stop the honest one.
#[test]
fn test_nothing_builds_on_a_refused_frame() {
    let mut g = game(11);
    play(&mut g, &["e2e4", "e7e5"], T0 + 2);
    let frames = frames_of(&g.transcript());
    let mut book = book_of(&g);
    // Black's delegation forged (another wallet signed it), then black's move naming it.
    let Frame::Delegation(black) = frames[1].clone() else {
        panic!("black's delegation second")
    };
    assert_eq!(black.player, Side::Black);
    let forged = delegate(
        &key("mallory"),
        &g.domain,
        g.game.game_id,
        black.session_key,
        black.first_ply,
        black.last_ply,
        black.expires,
    )
    .expect("signing");
    let mut forged_frame = black.clone();
    forged_frame.signature = forged.signature;
    assert_eq!(
        refused(&mut book, &Frame::Delegation(forged_frame), AT).kind(),
        "signature"
    );
    taken(&mut book, &frames[0], AT);
    taken(&mut book, &frames[2], AT);
    // Black's receipt of ply 1 names black's delegation 0: not held.
    let why = refused(&mut book, &frames[3], AT);
    assert_eq!(why.kind(), "delegation", "{why}");
    for frame in &frames[1..] {
        if !book.frames().contains(frame) {
            taken(&mut book, frame, AT);
        }
    }
    // A refused move at ply 3 (signed, but claiming time the clock does not give).
    let mut bad = g.clone();
    bad.play(ChessMove::from_uci("g1f3").expect("uci"), T0 + 6)
        .expect("legal");
    let Some(Frame::Move(mut m)) = frames_of(&bad.transcript()).pop() else {
        panic!("the move last")
    };
    m.white_time += 30;
    let auth = bad
        .seat(Color::White)
        .authorise(&bad.domain, &m.message())
        .expect("signing");
    m.signature = auth.signature;
    let refused_move = m.message();
    assert_eq!(refused(&mut book, &Frame::Move(m), AT).kind(), "transition");
    // Everything naming the refused move.
    let receipt = receipt_of(&refused_move, T0 + 7);
    let auth = g
        .seat(Color::Black)
        .authorise(&g.domain, &receipt)
        .expect("signing");
    let frame = Frame::Receipt(ReceiptFrame {
        ply: 3,
        seen_at: T0 + 7,
        signature: auth.signature,
        delegation: 0,
    });
    assert_eq!(refused(&mut book, &frame, AT).kind(), "order");
    let named = |by: Side, signature: Bytes| SignedPosition {
        game_id: g.game.game_id,
        ply: 3,
        position: refused_move.hash(),
        by,
        signature,
        delegation: 0,
    };
    let offer = chessref_channel::DrawOffer {
        gameId: g.game.game_id,
        ply: 3,
        position: refused_move.hash(),
    };
    let auth = g
        .seat(Color::Black)
        .authorise(&g.domain, &offer)
        .expect("signing");
    assert_eq!(
        refused(
            &mut book,
            &Frame::DrawOffer(named(Side::Black, auth.signature)),
            AT
        )
        .kind(),
        "order"
    );
    let resignation = chessref_channel::Resignation {
        gameId: g.game.game_id,
        ply: 3,
        position: refused_move.hash(),
    };
    let auth = g
        .seat(Color::Black)
        .authorise(&g.domain, &resignation)
        .expect("signing");
    let frame = Frame::Resignation(chessref_channel::transcript::ResignationEntry {
        game_id: g.game.game_id,
        ply: 3,
        position: refused_move.hash(),
        by: Side::Black,
        signed: chessref_channel::transcript::SignatureEntry {
            signature: auth.signature,
            delegation: 0,
        },
    });
    let why = refused(&mut book, &frame, AT);
    assert!(["end", "order"].contains(&why.kind()), "{why}");
    assert_eq!(book.ended(), None);
    // A draw: white's half, then black's forged (its key on another result), then black's.
    let agreed = frames_of(&g.transcript_agreed(3).expect("signing"));
    let (white, black) = (
        agreed[agreed.len() - 2].clone(),
        agreed[agreed.len() - 1].clone(),
    );
    taken(&mut book, &white, AT);
    let Frame::Result(half) = &black else {
        panic!("black's half last")
    };
    let other = g.agree(1).expect("signing").2;
    let forged = Frame::Result(ResultHalf {
        signature: other.signature,
        ..half.clone()
    });
    let why = refused(&mut book, &forged, AT);
    assert_eq!(why.kind(), "signature", "{why}");
    assert_eq!(book.ended(), None);
    // A forged resignation does not end it either; the honest second half does.
    let mut resigned = frames_of(&g.transcript_resigned(Color::Black).expect("signing"))
        .pop()
        .expect("the resignation");
    *signature_mut(&mut resigned) = white.signature().clone();
    refused(&mut book, &resigned, AT);
    assert_eq!(book.ended(), None);
    taken(&mut book, &black, AT);
    assert_eq!(book.ended(), Some("result"));
    assert_eq!(book.transcript(), &g.transcript_agreed(3).expect("signing"));
}

/// Honest frames in orders other than a client's: every delegation first or each just
/// before its first use, the moves before any receipt and the receipts last first, a
/// restart (the book read back) between every two: all taken, as the relay that checked
/// the whole game took them.
#[test]
fn test_honest_frames_in_any_valid_order_are_all_taken() {
    let (g, honest, agreed) = long_game();
    let delegations: Vec<Frame> = honest
        .iter()
        .filter(|f| matches!(f, Frame::Delegation(_)))
        .cloned()
        .collect();
    let moves: Vec<Frame> = honest
        .iter()
        .filter(|f| matches!(f, Frame::Move(_)))
        .cloned()
        .collect();
    let mut receipts: Vec<Frame> = honest
        .iter()
        .filter(|f| matches!(f, Frame::Receipt(_)))
        .cloned()
        .collect();
    receipts.reverse();
    let ends: Vec<Frame> = honest
        .iter()
        .filter(|f| matches!(f, Frame::DrawOffer(_) | Frame::Result(_)))
        .cloned()
        .collect();
    // Black's delegations before white's (each player's in its order), the moves,
    // the receipts last first, the end black's half first.
    let mut order: Vec<Frame> = delegations
        .iter()
        .filter(|d| matches!(d, Frame::Delegation(d) if d.player == Side::Black))
        .chain(
            delegations
                .iter()
                .filter(|d| matches!(d, Frame::Delegation(d) if d.player == Side::White)),
        )
        .cloned()
        .collect();
    order.extend(moves.iter().cloned());
    order.extend(receipts.iter().cloned());
    order.push(ends[0].clone());
    order.push(ends[2].clone());
    order.push(ends[1].clone());
    let mut book = book_of(&g);
    for frame in &order {
        taken(&mut book, frame, AT);
        book = restarted(&book, AT);
    }
    // The same messages (the transcript numbers delegations as they came; a frame
    // numbers its signer's own).
    let (held, expected) = (frames_of(book.transcript()), frames_of(&agreed));
    assert_eq!(held.len(), expected.len());
    assert!(expected.iter().all(|f| held.contains(f)));
    assert_eq!(book.ended(), Some("result"));
}
