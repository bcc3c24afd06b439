//! The engine's own setup book, the one `OwnBook` plays:
//! `engine/data/book.txt` (made by `arena openings generate`), in the
//! format of the `leaper-book` crate.

pub use leaper_book::Book;
use std::sync::{Arc, OnceLock};

/// The book that ships inside the engine (`engine/data/book.txt`, made by
/// `arena openings generate`), read once on first use.
pub fn builtin() -> Arc<Book> {
    static BUILTIN: OnceLock<Arc<Book>> = OnceLock::new();
    BUILTIN
        .get_or_init(|| Arc::new(Book::parse(include_str!("../data/book.txt")).0))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_book_reads_cleanly() {
        let (book, errors) = Book::parse(include_str!("../data/book.txt"));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(book.len() >= 100);
        assert_eq!(builtin().len(), book.len());
        assert!(!book.red_choices().is_empty());
    }
}
