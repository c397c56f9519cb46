//! Keyset pagination: newest first, the last id of a page is the next cursor.

use uuid::Uuid;

pub const DEFAULT_LIMIT: u8 = 20;
pub const MAX_LIMIT: u8 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    limit: u8,
    starting_after: Option<Uuid>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be an integer between 1 and 100")]
pub struct PageRequestError;

impl PageRequest {
    pub fn new(
        limit: Option<&str>,
        starting_after: Option<Uuid>,
    ) -> Result<Self, PageRequestError> {
        let limit = match limit {
            None => DEFAULT_LIMIT,
            Some(s) => s
                .parse::<u8>()
                .ok()
                .filter(|l| (1..=MAX_LIMIT).contains(l))
                .ok_or(PageRequestError)?,
        };
        Ok(Self {
            limit,
            starting_after,
        })
    }

    pub fn first(limit: u8) -> Self {
        Self {
            limit: limit.clamp(1, MAX_LIMIT),
            starting_after: None,
        }
    }

    /// The next page after the row with this id.
    pub fn after(self, id: Uuid) -> Self {
        Self {
            starting_after: Some(id),
            ..self
        }
    }

    pub fn limit(&self) -> u8 {
        self.limit
    }

    pub fn starting_after(&self) -> Option<Uuid> {
        self.starting_after
    }

    /// Adapters fetch one row more than the limit to learn `has_more`.
    pub fn fetch_limit(&self) -> i64 {
        i64::from(self.limit) + 1
    }
}

impl Default for PageRequest {
    fn default() -> Self {
        Self::first(DEFAULT_LIMIT)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub has_more: bool,
}

impl<T> Page<T> {
    /// Cuts a fetch of up to `limit + 1` rows down to the page.
    pub fn from_overfetch(mut rows: Vec<T>, request: &PageRequest) -> Self {
        let has_more = rows.len() > usize::from(request.limit());
        rows.truncate(usize::from(request.limit()));
        Self {
            data: rows,
            has_more,
        }
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            data: self.data.into_iter().map(f).collect(),
            has_more: self.has_more,
        }
    }

    pub fn try_map<U, E>(self, f: impl FnMut(T) -> Result<U, E>) -> Result<Page<U>, E> {
        Ok(Page {
            data: self.data.into_iter().map(f).collect::<Result<_, _>>()?,
            has_more: self.has_more,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits() {
        assert_eq!(PageRequest::new(None, None).unwrap().limit(), 20);
        assert_eq!(PageRequest::new(Some("1"), None).unwrap().limit(), 1);
        assert_eq!(PageRequest::new(Some("100"), None).unwrap().limit(), 100);
        for bad in ["0", "101", "-1", "abc", "", "1.5", "999999"] {
            assert!(PageRequest::new(Some(bad), None).is_err(), "{bad}");
        }
    }

    #[test]
    fn overfetch_sets_has_more() {
        let req = PageRequest::first(2);
        assert_eq!(
            Page::from_overfetch(vec![1, 2, 3], &req),
            Page {
                data: vec![1, 2],
                has_more: true
            }
        );
        assert_eq!(
            Page::from_overfetch(vec![1, 2], &req),
            Page {
                data: vec![1, 2],
                has_more: false
            }
        );
    }
}
