//! leaper-book: setup books: which setup pairs are good, in a plain-text format that
//! people can read, diff and edit.
//!
//! One entry per line, fields separated by white space: Red's setup, Blue's
//! reply, the evaluation (logit x 10,000 from Red's side), the search depth
//! that produced it, and an optional weight; `#` starts a comment. Opening
//! suites for the arena use the same format. Readers report a bad line with
//! its number and go on. The game is symmetric under the left-right mirror,
//! so a lookup also finds a mirrored Red setup and answers with the mirrored
//! reply.
//!
//! This crate is the format alone, on top of the rules: the engine reads
//! its own book with it (`OwnBook`, `leaper::book::builtin`), and the
//! `openings` crate builds books and suites with it.

use leaper_rules::{Color, Setup};
use std::collections::HashMap;
use std::fmt;

/// One line of a book: a setup pair and what a search thought of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BookEntry {
    /// Red's setup.
    pub red: Setup,
    /// Blue's reply.
    pub blue: Setup,
    /// Evaluation from Red's side, logit x 10,000.
    pub eval: i32,
    /// Depth of the search that gave `eval`.
    pub depth: u32,
    /// Relative weight for random choice, if given.
    pub weight: Option<f64>,
}

impl BookEntry {
    /// The same pair seen in the mirror (same evaluation).
    pub fn mirror(&self) -> BookEntry {
        BookEntry {
            red: self.red.mirror(),
            blue: self.blue.mirror(),
            ..*self
        }
    }
}

impl fmt::Display for BookEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}",
            self.red.to_text(Color::Red),
            self.blue.to_text(Color::Blue),
            self.eval,
            self.depth
        )?;
        if let Some(w) = self.weight {
            write!(f, " {w}")?;
        }
        Ok(())
    }
}

/// A line of a book that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct BookLineError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// Reads one entry from a line without its comment; `Ok(None)` for a blank line.
pub fn parse_entry(text: &str) -> Result<Option<BookEntry>, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.is_empty() {
        return Ok(None);
    }
    if fields.len() < 4 || fields.len() > 5 {
        return Err(format!(
            "expected 4 or 5 fields (red setup, blue setup, eval, depth [, weight]), found {}",
            fields.len()
        ));
    }
    let red = Setup::parse(fields[0])
        .map_err(|e| format!("red setup '{}': {e}", fields[0]))?
        .0;
    let blue = Setup::parse(fields[1])
        .map_err(|e| format!("blue setup '{}': {e}", fields[1]))?
        .0;
    let eval = fields[2]
        .parse()
        .map_err(|_| format!("eval '{}' is not an integer", fields[2]))?;
    let depth = fields[3]
        .parse()
        .map_err(|_| format!("depth '{}' is not a whole number", fields[3]))?;
    let weight = match fields.get(4) {
        None => None,
        Some(w) => match w.parse::<f64>() {
            Ok(w) if w.is_finite() && w >= 0.0 => Some(w),
            _ => return Err(format!("weight '{w}' is not a finite number >= 0")),
        },
    };
    Ok(Some(BookEntry {
        red,
        blue,
        eval,
        depth,
        weight,
    }))
}

/// A setup book, indexed by Red's setup.
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: Vec<BookEntry>,
    by_red: HashMap<Setup, Vec<usize>>,
}

impl Book {
    /// A book of these entries, in this order.
    pub fn new(entries: Vec<BookEntry>) -> Book {
        let mut by_red: HashMap<Setup, Vec<usize>> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            by_red.entry(e.red).or_default().push(i);
        }
        Book { entries, by_red }
    }

    /// Reads a book; the lines that cannot be read are returned beside it.
    pub fn parse(text: &str) -> (Book, Vec<BookLineError>) {
        let mut entries = Vec::new();
        let mut errors = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let content = line.split('#').next().unwrap_or("");
            match parse_entry(content) {
                Ok(Some(entry)) => entries.push(entry),
                Ok(None) => {}
                Err(message) => errors.push(BookLineError { line: i + 1, message }),
            }
        }
        (Book::new(entries), errors)
    }

    /// The book as text, with a header comment naming the fields.
    pub fn to_text(&self) -> String {
        let mut out =
            String::from("# leaper setup book: red_setup blue_setup eval(logit x 10000, red's view) depth [weight]\n");
        for e in &self.entries {
            out.push_str(&e.to_string());
            out.push('\n');
        }
        out
    }

    /// All entries in book order.
    pub fn entries(&self) -> &[BookEntry] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book's replies to `red`: its own entries, or else those of the
    /// mirrored setup, mirrored back.
    pub fn replies(&self, red: &Setup) -> Vec<BookEntry> {
        if let Some(ix) = self.by_red.get(red) {
            return ix.iter().map(|&i| self.entries[i]).collect();
        }
        match self.by_red.get(&red.mirror()) {
            Some(ix) => ix.iter().map(|&i| self.entries[i].mirror()).collect(),
            None => Vec::new(),
        }
    }

    /// Blue's best known reply to `red` (lowest evaluation for Red), if the
    /// book knows `red` or its mirror.
    pub fn best_reply(&self, red: &Setup) -> Option<BookEntry> {
        self.replies(red).into_iter().min_by_key(|e| e.eval)
    }

    /// Each Red setup with its value: the evaluation after Blue's best
    /// known reply, best for Red first.
    pub fn red_choices(&self) -> Vec<(Setup, i32)> {
        let mut choices: Vec<(Setup, i32)> = self
            .by_red
            .iter()
            .filter_map(|(red, ix)| ix.iter().map(|&i| self.entries[i].eval).min().map(|v| (*red, v)))
            .collect();
        choices.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        choices
    }

    /// A Red setup chosen among the `variety` best (1 = always the best),
    /// by `pick`, which receives the number of candidates and returns an
    /// index (a caller's random number generator).
    pub fn choose_red(&self, variety: usize, pick: impl FnOnce(usize) -> usize) -> Option<Setup> {
        let choices = self.red_choices();
        let n = variety.clamp(1, choices.len().max(1)).min(choices.len());
        if n == 0 {
            return None;
        }
        Some(choices[pick(n).min(n - 1)].0)
    }

    /// Every distinct Blue setup in the book: candidates to search against
    /// a Red setup the book does not know.
    pub fn blue_candidates(&self) -> Vec<Setup> {
        let mut seen: Vec<Setup> = self.entries.iter().map(|e| e.blue).collect();
        seen.sort();
        seen.dedup();
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# a comment\n\
        AWAAAAAADFFDDDAN addadffdnaaaaawa 120 8\n\
        AWAAAAAADFFDDDAN aaaaaffdaddadnwa -40 8 2.5   # trailing comment\n\
        \n\
        AAAAAAWANADDDFFD addadffdnaaaaawa x 8\n\
        AWAAAAAADFFDDDA addadffdnaaaaawa 1 1\n\
        AADWNDAAFDAAAADF fdaaaadfaadwndaa 0 4\n";

    #[test]
    fn reads_good_lines_and_reports_bad_ones_with_their_numbers() {
        let (book, errors) = Book::parse(TEXT);
        assert_eq!(book.len(), 3);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].line, 5);
        assert!(errors[0].message.contains("eval 'x'"));
        assert_eq!(errors[1].line, 6);
        assert!(errors[1].message.contains("16 letters"), "{}", errors[1]);
        assert_eq!(book.entries()[1].weight, Some(2.5));
    }

    #[test]
    fn text_round_trips() {
        let (book, _) = Book::parse(TEXT);
        let (again, errors) = Book::parse(&book.to_text());
        assert!(errors.is_empty());
        assert_eq!(again.entries(), book.entries());
    }

    #[test]
    fn mirrored_setups_find_mirrored_replies() {
        let (book, _) = Book::parse(TEXT);
        let red = Setup::parse("AWAAAAAADFFDDDAN").unwrap().0;
        assert_eq!(book.best_reply(&red).map(|e| e.eval), Some(-40));
        let mirrored = book.best_reply(&red.mirror()).unwrap();
        assert_eq!(mirrored.red, red.mirror());
        assert_eq!(mirrored.blue.to_text(Color::Blue), "dffaaaaaawndadda");
        assert_eq!(mirrored.blue, Setup::parse("aaaaaffdaddadnwa").unwrap().0.mirror());
        assert_eq!(mirrored.eval, -40);
        let unknown = Setup::first();
        assert!(book.replies(&unknown).is_empty());
    }

    #[test]
    fn red_choices_are_minimax_values() {
        let (book, _) = Book::parse(TEXT);
        let choices = book.red_choices();
        assert_eq!(choices.len(), 2);
        assert_eq!(choices[0].1, 0);
        assert_eq!(choices[1].1, -40);
        assert_eq!(book.choose_red(1, |_| 0), Some(choices[0].0));
        assert_eq!(book.choose_red(5, |n| n - 1), Some(choices[1].0));
        assert_eq!(Book::default().choose_red(3, |_| 0), None);
        assert_eq!(book.blue_candidates().len(), 3);
    }
}
