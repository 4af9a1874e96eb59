//! What a contract's revert means to a person: every custom error of the referee, the tournament and the
//! channel as a sentence (`not yet playable: the response window ends at 14:02:19 UTC (in
//! 9 min 40 s)`), and its fields as the contract raised them, for `--json` and details.
//! One table for every client of the crate: the CLI prints it, the session reports it.

use alloy_primitives::U256;
use chessref_core::{InvalidState, Rejection};
use serde_json::{Value, json};

use crate::amount::Unit;
use crate::bindings::ChessChannel::ChessChannelErrors as C;
use crate::bindings::ChessReferee::ChessRefereeErrors as R;
use crate::bindings::ChessTournament::ChessTournamentErrors as T;
use crate::moment::{span, when};
use crate::revert::ContractRevert;

impl ContractRevert {
    /// The revert as a sentence; times in it are read against `now` (unix seconds).
    pub fn words(&self, now: u64) -> String {
        match self {
            ContractRevert::IllegalMove(code) => match Rejection::from_code(*code) {
                Some(rejection) => format!("illegal move: {rejection}"),
                None => format!("illegal move (code {code}, which ENCODING.md does not define)"),
            },
            ContractRevert::InvalidState(code) => match InvalidState::from_code(*code) {
                Some(invalid) => format!("the position is not a valid state: {invalid}"),
                None => format!("the position is not a valid state (code {code})"),
            },
            ContractRevert::BadStateLength(length) => {
                format!("a position is 128 bytes; the contract was given {length}")
            }
            ContractRevert::Referee(error) => referee_words(error, now),
            ContractRevert::Channel(error) => channel_words(error, now),
            ContractRevert::Tournament(error) => tournament_words(error, now),
            ContractRevert::Panic(code) => format!(
                "the contract stopped on an internal check (Solidity panic 0x{code:x}): report it"
            ),
            ContractRevert::Message(message) => format!("the contract refused: {message}"),
            ContractRevert::Unknown(data) if data.is_empty() => {
                "the transaction failed without a reason (out of gas, or not a chessref contract)"
                    .to_owned()
            }
            ContractRevert::Unknown(data) => {
                format!("the contract refused with data this client cannot read (0x{data:x})")
            }
        }
    }

    /// The error's fields by their Solidity names, as the contract raised them
    /// (`[("playableFrom", 1795768139)]`); numbers above 2^53 as decimal strings, as JSON
    /// readers lose them otherwise.
    pub fn fields(&self) -> Vec<(&'static str, Value)> {
        match self {
            ContractRevert::IllegalMove(code) | ContractRevert::InvalidState(code) => {
                vec![("code", json!(code))]
            }
            ContractRevert::BadStateLength(length) => vec![("length", number(*length))],
            ContractRevert::Referee(error) => referee_fields(error),
            ContractRevert::Channel(error) => channel_fields(error),
            ContractRevert::Tournament(error) => tournament_fields(error),
            ContractRevert::Panic(code) => vec![("code", number(*code))],
            ContractRevert::Message(message) => vec![("message", json!(message))],
            ContractRevert::Unknown(data) => vec![("data", json!(format!("0x{data:x}")))],
        }
    }

    /// The error for `--json`: `{"name": "NotYetPlayable", "playableFrom": 1795768139}`.
    pub fn to_json(&self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("name".into(), json!(self.name()));
        for (name, value) in self.fields() {
            object.insert(name.into(), value);
        }
        Value::Object(object)
    }
}

/// `value` as a JSON number when a JSON reader keeps it exactly, else as a decimal string.
fn number(value: U256) -> Value {
    const EXACT: u64 = 1 << 53;
    match u64::try_from(value) {
        Ok(small) if small <= EXACT => json!(small),
        _ => json!(value.to_string()),
    }
}

/// A unix time or a span in seconds from a contract's uint256 (saturating: no real time
/// is above 2^64).
fn seconds(value: U256) -> u64 {
    value.saturating_to()
}

// The errors both contracts declare read the same from either.
const NOT_A_PLAYER: &str = "only the game's two players can do that";

fn not_running(game: U256) -> String {
    format!("game {game} is not running (not started, ended or cancelled)")
}

fn not_a_channel_game(game: U256) -> String {
    format!("game {game} is not a channel game: it is played on-chain, move by move")
}

fn referee_words(error: &R, now: u64) -> String {
    match error {
        R::BadAnnex(e) => format!(
            "the referee's annex {} holds no code: this deployment is broken",
            e.annex
        ),
        R::BadBlueprint(e) => format!(
            "the blueprint {} created no contract: this deployment is broken",
            e.blueprint
        ),
        R::BadFirstMoveWindow(e) => format!(
            "a first-move window of {} is out of range: it is 1 min to 1 d (or 0 for the default)",
            span(seconds(e.firstMoveWindow))
        ),
        R::BadRecipient(e) => format!(
            "{} cannot receive a withdrawal: the funds would be stranded there",
            e.to
        ),
        R::BadResponseWindow(e) => format!(
            "a response window of {} is out of range: it is 10 min to 1 d (how long the other player has to answer if the game is taken on-chain)",
            span(seconds(e.responseWindow))
        ),
        R::BadStateLength(e) => ContractRevert::BadStateLength(e.length).words(now),
        R::BadTimeControl(e) => format!(
            "the time control {} + {} a move is out of range: each clock is 1 min to 90 d, the increment at most 1 d",
            span(seconds(e.initialTime)),
            span(seconds(e.increment))
        ),
        R::BadWitness(_) => {
            "the repetition witness does not match the game's recorded positions".to_owned()
        }
        R::CannotAcceptOwnOffer(_) => "you cannot accept your own draw offer".to_owned(),
        R::CannotPlaySelf(_) => "you cannot play against yourself".to_owned(),
        R::DrawNotClaimable(_) => "no draw can be claimed in this position: neither the fifty-move rule nor threefold repetition applies".to_owned(),
        R::EthTransferFailed(_) => {
            "sending the ETH to your account failed (does the receiving contract accept ETH?)"
                .to_owned()
        }
        R::GameNotOpen(e) => format!(
            "game {} is not open: someone joined it, or it was cancelled",
            e.gameId
        ),
        R::GameNotRunning(e) => not_running(e.gameId),
        R::IllegalMove(e) => ContractRevert::IllegalMove(e.code).words(now),
        R::InvalidState(e) => ContractRevert::InvalidState(e.code).words(now),
        R::NoDrawOffer(_) => {
            "there is no draw offer from your opponent in this position".to_owned()
        }
        R::NoPendingOutcome(e) => format!(
            "game {} has no registered decided position to finish",
            e.gameId
        ),
        R::NotAChannelGame(e) => not_a_channel_game(e.gameId),
        R::NotAPlayer(_) => NOT_A_PLAYER.to_owned(),
        R::NotChannel(_) => "only the referee's channel contract may call this".to_owned(),
        R::NotTournament(_) => {
            "only the referee's tournament contract may host a game".to_owned()
        }
        R::NotCreator(_) => "only the player who created the game can cancel it".to_owned(),
        R::NotInvited(e) => format!(
            "this game was created for another opponent ({})",
            e.invited
        ),
        R::NotYetPlayable(e) => format!(
            "not yet playable: the response window ends at {}",
            when(seconds(e.playableFrom), now)
        ),
        R::NotYourTurn(_) => "it is not your move".to_owned(),
        R::NothingToWithdraw(_) => "you have nothing to withdraw".to_owned(),
        R::OffChain(e) => format!(
            "game {} is played off-chain: until a position is registered, only the channel's calls and resign act on it",
            e.gameId
        ),
        R::PlyOutOfRange(e) => format!("ply {} is beyond what a game record holds", e.ply),
        R::PositionDecided(e) => format!(
            "game {}'s registered position is decided: nothing is played from it; it is finished once its response window is over",
            e.gameId
        ),
        R::Reentrancy(_) => "a call back into the referee during a payment is refused".to_owned(),
        R::StalePosition(_) => {
            "the game moved on since this position was read: read it again and retry".to_owned()
        }
        R::StartPositionOver(e) => format!(
            "the start position is already decided (status {}): no game starts from it",
            e.status
        ),
        R::TimeNotUp(e) => format!(
            "the side to move still has time: its flag falls at {}",
            when(seconds(e.deadline), now)
        ),
        R::TimeUp(_) => {
            "the side to move has run out of time: only a timeout claim ends the game now"
                .to_owned()
        }
        R::TokenShortPaid(e) => format!(
            "the token delivered {} base units where the stake is {}: tokens that keep a fee on transfer are refused",
            e.received, e.expected
        ),
        R::TokenTransferFailed(e) => format!("the token {} refused the transfer", e.token),
        R::WrongEthAmount(e) => format!(
            "{} was sent where exactly {} is needed",
            Unit::eth().format(e.received),
            Unit::eth().format(e.expected)
        ),
        R::WrongTerms(e) => format!(
            "the game's terms are not the ones you agreed to: read the game again (its terms hash is {})",
            e.terms
        ),
        R::ZeroRecipient(_) => "a withdrawal to the zero address is refused".to_owned(),
    }
}

fn referee_fields(error: &R) -> Vec<(&'static str, Value)> {
    match error {
        R::BadAnnex(e) => vec![("annex", json!(e.annex))],
        R::BadBlueprint(e) => vec![("blueprint", json!(e.blueprint))],
        R::BadFirstMoveWindow(e) => vec![("firstMoveWindow", number(e.firstMoveWindow))],
        R::BadRecipient(e) => vec![("to", json!(e.to))],
        R::BadResponseWindow(e) => vec![("responseWindow", number(e.responseWindow))],
        R::BadStateLength(e) => vec![("length", number(e.length))],
        R::BadTimeControl(e) => vec![
            ("initialTime", number(e.initialTime)),
            ("increment", number(e.increment)),
        ],
        R::GameNotOpen(e) => vec![("gameId", number(e.gameId))],
        R::GameNotRunning(e) => vec![("gameId", number(e.gameId))],
        R::IllegalMove(e) => vec![("code", json!(e.code))],
        R::InvalidState(e) => vec![("code", json!(e.code))],
        R::NoPendingOutcome(e) => vec![("gameId", number(e.gameId))],
        R::NotAChannelGame(e) => vec![("gameId", number(e.gameId))],
        R::NotInvited(e) => vec![("invited", json!(e.invited))],
        R::NotYetPlayable(e) => vec![("playableFrom", number(e.playableFrom))],
        R::OffChain(e) => vec![("gameId", number(e.gameId))],
        R::PlyOutOfRange(e) => vec![("ply", number(e.ply))],
        R::PositionDecided(e) => vec![("gameId", number(e.gameId))],
        R::StartPositionOver(e) => vec![("status", number(e.status))],
        R::TimeNotUp(e) => vec![("deadline", number(e.deadline))],
        R::TokenShortPaid(e) => vec![
            ("expected", number(e.expected)),
            ("received", number(e.received)),
        ],
        R::TokenTransferFailed(e) => vec![("token", json!(e.token))],
        R::WrongEthAmount(e) => vec![
            ("expected", number(e.expected)),
            ("received", number(e.received)),
        ],
        R::WrongTerms(e) => vec![("terms", json!(e.terms))],
        R::BadWitness(_)
        | R::CannotAcceptOwnOffer(_)
        | R::CannotPlaySelf(_)
        | R::DrawNotClaimable(_)
        | R::EthTransferFailed(_)
        | R::NoDrawOffer(_)
        | R::NotAPlayer(_)
        | R::NotChannel(_)
        | R::NotTournament(_)
        | R::NotCreator(_)
        | R::NotYourTurn(_)
        | R::NothingToWithdraw(_)
        | R::Reentrancy(_)
        | R::StalePosition(_)
        | R::TimeUp(_)
        | R::ZeroRecipient(_) => Vec::new(),
    }
}

/// CHANNEL.md section 6's transition codes as sentences (what `InvalidTransition` names).
fn transition_words(code: u8, rule_code: u8) -> String {
    match code {
        1 => "the move belongs to another game".to_owned(),
        2 => "the move's ply does not follow the position it answers".to_owned(),
        3 => "the move does not name the position it answers".to_owned(),
        4 => "the move's stamp or clocks do not follow from the position it answers".to_owned(),
        5 => "the position it answers is already decided: no move follows it".to_owned(),
        6 if rule_code == 0 => "the position it answers is not a valid state".to_owned(),
        6 => ContractRevert::IllegalMove(rule_code).words(0),
        7 => "the move's position is not the one its move makes".to_owned(),
        8 => {
            "the move's repetition history does not follow from the position it answers".to_owned()
        }
        _ => format!("transition code {code}, which CHANNEL.md does not define"),
    }
}

fn channel_words(error: &C, now: u64) -> String {
    match error {
        C::AgreementsClosed(e) => format!(
            "game {} is played on-chain now: draws and resignations are made on the referee (draw, resign), not signed off-chain",
            e.gameId
        ),
        C::AlreadyOnChain(e) => format!("game {} has already been continued on-chain", e.gameId),
        C::BadReceipt(_) => {
            "the receipt is not of the registered move, or its time is out of range".to_owned()
        }
        C::BadResult(e) => format!("{} is not a result (1, 2 or 3)", e.result),
        C::BadSignature(e) => format!("a message is not signed on behalf of {}", e.player),
        C::BadStateLength(e) => {
            format!(
                "a position is 128 bytes; the contract was given {}",
                e.length
            )
        }
        C::FlagFell(e) => format!(
            "too late: the reply's author ran out of time at {}, so the registration stands",
            when(seconds(e.deadline), now)
        ),
        C::GameNotRunning(e) => not_running(e.gameId),
        C::InvalidTransition(e) => format!(
            "not a valid next move: {}",
            transition_words(e.code, e.ruleCode)
        ),
        C::LapsedAgreement(e) => format!(
            "the agreement is older than the registered ply {}: it has lapsed",
            e.registeredPly
        ),
        C::NotAChannelGame(e) => not_a_channel_game(e.gameId),
        C::NotAPlayer(_) => NOT_A_PLAYER.to_owned(),
        C::NotEquivocation(_) => {
            "the two moves are not two different moves signed for one ply by the same player"
                .to_owned()
        }
        C::NotIllegal(_) => {
            "the signed move is a valid successor of the position it names: nothing to prove"
                .to_owned()
        }
        C::NotTheRegisteredPosition(_) => {
            "the reply does not answer the registered position".to_owned()
        }
        C::NotTheStart(_) => "a first move must start from the game's start position".to_owned(),
        C::RegistrationClosed(e) => format!(
            "game {} is played on-chain now: moves are sent to the referee, not registered",
            e.gameId
        ),
        C::RetiredKey(e) => format!(
            "the session key {} was retired by a later delegation: what it signed no longer settles the game",
            e.sessionKey
        ),
        C::StaleMove(e) => format!(
            "the move was stamped at {}, too long ago to register without the opponent's receipt",
            when(seconds(e.timestamp), now)
        ),
        C::StaleRegistration(e) => format!(
            "a later position is already registered (ply {}): register a later one, or answer it",
            e.registeredPly
        ),
        C::WrongGame(_) => {
            "the move and the position it names belong to different games".to_owned()
        }
    }
}

fn channel_fields(error: &C) -> Vec<(&'static str, Value)> {
    match error {
        C::AgreementsClosed(e) => vec![("gameId", number(e.gameId))],
        C::AlreadyOnChain(e) => vec![("gameId", number(e.gameId))],
        C::BadResult(e) => vec![("result", json!(e.result))],
        C::BadSignature(e) => vec![("player", json!(e.player))],
        C::BadStateLength(e) => vec![("length", number(e.length))],
        C::FlagFell(e) => vec![("deadline", number(e.deadline))],
        C::GameNotRunning(e) => vec![("gameId", number(e.gameId))],
        C::InvalidTransition(e) => vec![("code", json!(e.code)), ("ruleCode", json!(e.ruleCode))],
        C::LapsedAgreement(e) => vec![("registeredPly", number(e.registeredPly))],
        C::NotAChannelGame(e) => vec![("gameId", number(e.gameId))],
        C::RegistrationClosed(e) => vec![("gameId", number(e.gameId))],
        C::RetiredKey(e) => vec![("sessionKey", json!(e.sessionKey))],
        C::StaleMove(e) => vec![("timestamp", number(e.timestamp))],
        C::StaleRegistration(e) => vec![("registeredPly", number(e.registeredPly))],
        C::BadReceipt(_)
        | C::NotAPlayer(_)
        | C::NotEquivocation(_)
        | C::NotIllegal(_)
        | C::NotTheRegisteredPosition(_)
        | C::NotTheStart(_)
        | C::WrongGame(_) => Vec::new(),
    }
}

fn tournament_words(error: &T, now: u64) -> String {
    match error {
        T::AlreadyClaimed(_) => "this prize, refund or fee was already credited".to_owned(),
        T::AlreadyDrawn(_) => "the bracket is already drawn".to_owned(),
        T::AlreadyEntered(_) => "you already hold a seat in this event".to_owned(),
        T::AlreadyStarted(e) => format!("match {} was already started", e.matchIndex),
        T::BadAbandonAfter(e) => format!(
            "abandon-after {} is out of the range the contract accepts",
            span(seconds(e.abandonAfter))
        ),
        T::BadDeadline(e) => format!(
            "the registration deadline {} is not in the future, or more than 90 days ahead",
            when(seconds(e.deadline), now)
        ),
        T::BadFirstMoveWindow(e) => format!(
            "a first-move window of {} s is out of the range the referee accepts",
            e.firstMoveWindow
        ),
        T::BadMatch(e) => format!("this event has no match {}", e.matchIndex),
        T::BadRecipient(e) => format!("a withdrawal to the tournament itself ({}) is refused", e.to),
        T::BadResponseWindow(e) => format!(
            "a response window of {} s is out of the range the channel accepts",
            e.responseWindow
        ),
        T::BadSize(e) => format!("an event has 4, 8, 16, 32 or 64 players, not {}", e.size),
        T::BadSplit(_) => "the prize split is empty, longer than the event has places, increasing, or its shares times the players of each place do not sum to 10,000".to_owned(),
        T::BadTimeControl(e) => format!(
            "the time control {} s + {} s per move is out of the range the referee accepts",
            e.initialTime, e.increment
        ),
        T::EthTransferFailed(_) => "the ETH transfer of the withdrawal failed".to_owned(),
        T::FeeTooHigh(e) => format!(
            "an organiser fee of {} basis points is above the cap of 1,000 (10 %)",
            e.feeBps
        ),
        T::GameNotEnded(e) => format!("game {} has not ended on the referee yet", e.gameId),
        T::GameOver(e) => format!("game {} has ended: report its result instead", e.gameId),
        T::HasEntrants(_) => "the event has entrants: it can no longer be cancelled".to_owned(),
        T::LotNotArmed(e) => {
            format!("match {}'s game was drawn and its lot is not armed: report it first", e.matchIndex)
        }
        T::LotPending(e) => format!(
            "match {}'s lot waits for the hash of block {}",
            e.matchIndex, e.lotBlock
        ),
        T::NoLot(e) => format!("match {} has no lot to resolve", e.matchIndex),
        T::NotAToken(e) => format!("there is no contract at the fee token {}", e.token),
        T::NotAbandoned(e) => format!(
            "the game counts as abandoned only after {}",
            when(seconds(e.until), now)
        ),
        T::NotDrawnYet(e) => format!(
            "the draw waits for the hash of block {}: try after the next block",
            e.drawBlock
        ),
        T::NotEntered(_) => "you hold no seat in this event".to_owned(),
        T::NotFinished(_) => "the event's final is not decided yet".to_owned(),
        T::NotFull(_) => "the event is not full yet".to_owned(),
        T::NotOnChain(e) => format!(
            "game {} is a channel game nobody registered on-chain yet",
            e.gameId
        ),
        T::NotOrganiser(_) => "only the event's organiser may do that".to_owned(),
        T::NotRunning(e) => format!("match {} is not running (not started, or decided)", e.matchIndex),
        T::NotTheMatchGame(e) => format!("the start move names another game than match game {}", e.gameId),
        T::NothingToWithdraw(_) => "you have nothing to withdraw from the tournament".to_owned(),
        T::PlayersNotKnown(e) => format!(
            "match {}'s players are not known yet: a match below it is not decided",
            e.matchIndex
        ),
        T::PositionDecided(e) => format!(
            "game {}'s registered position is decided: end it with finishRegistered",
            e.gameId
        ),
        T::Reentrancy(_) => "the tournament refused a re-entrant call".to_owned(),
        T::RegistrationClosed(_) => {
            "registration is closed: past the deadline, full, or cancelled".to_owned()
        }
        T::StalePosition(_) => "the position given is not the game's current one".to_owned(),
        T::TokenShortPaid(e) => format!(
            "the tournament received {} of the fee {} (fee-on-transfer tokens are refused)",
            e.received, e.expected
        ),
        T::TokenTransferFailed(e) => format!("the token {} refused the transfer", e.token),
        T::UnexpectedResult(e) => format!(
            "game {} ended with a result the bracket cannot use (result {}: an abort)",
            e.gameId, e.result
        ),
        T::UnknownEvent(e) => format!("there is no event {}", e.eventId),
        T::WrongEthAmount(e) => format!(
            "{} was sent where exactly {} is needed",
            Unit::eth().format(e.received),
            Unit::eth().format(e.expected)
        ),
        T::ZeroRecipient(_) => "a withdrawal to the zero address is refused".to_owned(),
    }
}

fn tournament_fields(error: &T) -> Vec<(&'static str, Value)> {
    match error {
        T::AlreadyStarted(e) => vec![("matchIndex", number(e.matchIndex))],
        T::BadAbandonAfter(e) => vec![("abandonAfter", number(e.abandonAfter))],
        T::BadDeadline(e) => vec![("deadline", number(e.deadline))],
        T::BadFirstMoveWindow(e) => vec![("firstMoveWindow", number(e.firstMoveWindow))],
        T::BadMatch(e) => vec![("matchIndex", number(e.matchIndex))],
        T::BadRecipient(e) => vec![("to", json!(e.to))],
        T::BadResponseWindow(e) => vec![("responseWindow", number(e.responseWindow))],
        T::BadSize(e) => vec![("size", number(e.size))],
        T::BadTimeControl(e) => vec![
            ("initialTime", number(e.initialTime)),
            ("increment", number(e.increment)),
        ],
        T::FeeTooHigh(e) => vec![("feeBps", number(e.feeBps))],
        T::GameNotEnded(e) => vec![("gameId", number(e.gameId))],
        T::GameOver(e) => vec![("gameId", number(e.gameId))],
        T::LotNotArmed(e) => vec![("matchIndex", number(e.matchIndex))],
        T::LotPending(e) => vec![
            ("matchIndex", number(e.matchIndex)),
            ("lotBlock", number(e.lotBlock)),
        ],
        T::NoLot(e) => vec![("matchIndex", number(e.matchIndex))],
        T::NotAToken(e) => vec![("token", json!(e.token))],
        T::NotAbandoned(e) => vec![("until", number(e.until))],
        T::NotDrawnYet(e) => vec![("drawBlock", number(e.drawBlock))],
        T::NotOnChain(e) => vec![("gameId", number(e.gameId))],
        T::NotRunning(e) => vec![("matchIndex", number(e.matchIndex))],
        T::NotTheMatchGame(e) => vec![("gameId", number(e.gameId))],
        T::PlayersNotKnown(e) => vec![("matchIndex", number(e.matchIndex))],
        T::PositionDecided(e) => vec![("gameId", number(e.gameId))],
        T::TokenShortPaid(e) => vec![
            ("expected", number(e.expected)),
            ("received", number(e.received)),
        ],
        T::TokenTransferFailed(e) => vec![("token", json!(e.token))],
        T::UnexpectedResult(e) => vec![("gameId", number(e.gameId)), ("result", json!(e.result))],
        T::UnknownEvent(e) => vec![("eventId", number(e.eventId))],
        T::WrongEthAmount(e) => vec![
            ("expected", number(e.expected)),
            ("received", number(e.received)),
        ],
        T::AlreadyClaimed(_)
        | T::AlreadyDrawn(_)
        | T::AlreadyEntered(_)
        | T::BadSplit(_)
        | T::EthTransferFailed(_)
        | T::HasEntrants(_)
        | T::NotEntered(_)
        | T::NotFinished(_)
        | T::NotFull(_)
        | T::NotOrganiser(_)
        | T::NothingToWithdraw(_)
        | T::Reentrancy(_)
        | T::RegistrationClosed(_)
        | T::StalePosition(_)
        | T::ZeroRecipient(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::keccak256;
    use alloy_sol_types::SolError;

    use super::*;
    use crate::bindings::ChessChannel::StaleRegistration;
    use crate::bindings::ChessReferee::{NotYetPlayable, WrongEthAmount};

    // 2026-11-25T19:40:00Z.
    const NOW: u64 = 1_795_635_600;

    #[test]
    fn test_not_yet_playable_says_when_in_words() {
        let data = NotYetPlayable {
            playableFrom: U256::from(NOW + 580),
        }
        .abi_encode();
        let revert = ContractRevert::decode(&data);
        assert_eq!(
            revert.words(NOW),
            "not yet playable: the response window ends at 19:49:40 UTC (in 9 min 40 s)"
        );
        assert_eq!(revert.raw(), "NotYetPlayable(playableFrom: 1795636180)");
        assert_eq!(
            revert.to_json(),
            json!({"name": "NotYetPlayable", "playableFrom": 1_795_636_180u64})
        );
    }

    #[test]
    fn test_fields_keep_the_contracts_values() {
        let wei = U256::from(10u64).pow(U256::from(17));
        let revert = ContractRevert::decode(
            &WrongEthAmount {
                expected: wei,
                received: U256::ZERO,
            }
            .abi_encode(),
        );
        assert_eq!(
            revert.words(NOW),
            "0 ETH was sent where exactly 0.1 ETH is needed"
        );
        assert_eq!(
            revert.to_json(),
            json!({"name": "WrongEthAmount", "expected": "100000000000000000", "received": 0})
        );
        let revert = ContractRevert::decode(
            &StaleRegistration {
                registeredPly: U256::from(6),
            }
            .abi_encode(),
        );
        assert_eq!(revert.name(), "StaleRegistration");
        assert_eq!(revert.raw(), "StaleRegistration(registeredPly: 6)");
        assert!(
            revert.words(NOW).contains("(ply 6)"),
            "{}",
            revert.words(NOW)
        );
    }

    #[test]
    fn test_rule_codes_are_sentences() {
        assert_eq!(
            ContractRevert::IllegalMove(7).words(NOW),
            format!("illegal move: {}", Rejection::from_code(7).unwrap())
        );
        assert_eq!(ContractRevert::IllegalMove(7).raw(), "IllegalMove(code: 7)");
        assert!(
            ContractRevert::IllegalMove(99)
                .words(NOW)
                .contains("code 99")
        );
    }

    /// Every custom error of both contracts' ABIs (the committed artifacts, so an error
    /// added to a contract is met here), raised with zero fields, reads as a sentence that
    /// names neither the error nor a Rust type: a person never meets `Name(Name { .. })`.
    #[test]
    fn test_every_custom_error_reads_as_a_sentence() {
        let mut seen = 0;
        for artifact in [
            include_str!("../artifacts/ChessReferee.json"),
            include_str!("../artifacts/ChessChannel.json"),
            include_str!("../artifacts/ChessTournament.json"),
        ] {
            let artifact: Value = serde_json::from_str(artifact).unwrap();
            let abi = artifact.get("abi").unwrap_or(&artifact);
            for error in abi.as_array().unwrap() {
                if error["type"] != "error" {
                    continue;
                }
                let name = error["name"].as_str().unwrap();
                let inputs = error["inputs"].as_array().unwrap();
                let types: Vec<&str> = inputs.iter().map(|i| i["type"].as_str().unwrap()).collect();
                let signature = format!("{name}({})", types.join(","));
                let mut data = keccak256(signature.as_bytes())[..4].to_vec();
                data.resize(4 + 32 * inputs.len(), 0);
                let revert = ContractRevert::decode(&data);
                assert_eq!(revert.name(), name, "{signature} decodes as itself");
                let words = revert.words(NOW);
                assert!(
                    !words.contains(name) && !words.contains('{') && !words.is_empty(),
                    "{signature} reads {words:?}"
                );
                let fields: Vec<&str> = revert.fields().iter().map(|(n, _)| *n).collect();
                let declared: Vec<&str> =
                    inputs.iter().map(|i| i["name"].as_str().unwrap()).collect();
                assert_eq!(
                    fields, declared,
                    "{signature}: fields by their Solidity names"
                );
                seen += 1;
            }
        }
        assert!(seen >= 100, "{seen} custom errors");
    }
}
