//! The report page.
