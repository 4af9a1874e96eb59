//! What a player asks of a channel session ([`Command`]), and how a typed line reads as one.

/// One thing the player asks; the session answers with events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// A move, SAN or UCI.
    Move(String),
    /// Offer a draw, or accept the opponent's offer.
    Draw,
    /// Resign.
    Resign,
    /// Register the latest pair held (or overtake the frozen registration with it).
    Register,
    /// Claim: off-chain, a fifty-move or threefold draw (registering first); on-chain, the
    /// draw if claimable, else the opponent's timeout.
    Claim,
    /// Draw the position again.
    Show,
    /// End the session (the game goes on; a restarted session resumes it).
    Quit,
}

impl Command {
    /// The command a typed line names (`None` for an empty line): `draw`, `resign`,
    /// `register`, `claim`, `show`, `quit` or `exit`, else a move.
    pub fn parse(line: &str) -> Option<Command> {
        Some(match line.trim() {
            "" => return None,
            "quit" | "exit" => Command::Quit,
            "show" => Command::Show,
            "draw" => Command::Draw,
            "resign" => Command::Resign,
            "register" => Command::Register,
            "claim" => Command::Claim,
            text => Command::Move(text.to_owned()),
        })
    }

    /// Whether it acts on the game (so the chain is looked at first).
    pub fn acts(&self) -> bool {
        !matches!(self, Command::Show | Command::Quit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_as_commands_and_anything_else_as_a_move() {
        assert_eq!(Command::parse("  "), None);
        assert_eq!(Command::parse("exit"), Some(Command::Quit));
        assert_eq!(Command::parse(" register\n"), Some(Command::Register));
        assert_eq!(Command::parse("Nf3"), Some(Command::Move("Nf3".into())));
        assert!(!Command::Show.acts() && Command::Draw.acts());
    }
}
