//! Progress notifications (`notifications/progress`, MCP spec basic/utilities/progress)
//! routed to the call that asked for them, by the request's progress token.
//!
//! rmcp hands each notification to a task of its own, so the last progress of a
//! request can arrive after its response: a finished request's token still routes
//! for [`LATE_PROGRESS`]. Finished tokens are kept in the order they finished and
//! forgotten from the front as they age, so a call costs the same however many calls
//! came just before it (a scan of every finished token on each call made 1,000 quick
//! calls cost 1,000 × the calls of the last two seconds).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::ProgressToken;
use tokio::sync::watch;

/// How long a finished request's progress token still routes (tokens are never
/// reused, so nothing else can match it meanwhile).
const LATE_PROGRESS: Duration = Duration::from_secs(2);

/// How long a request's answer waits, at most, for the progress that came before it
/// to be handled (see [`ProgressRoutes::settled`]).
const SETTLE: Duration = Duration::from_millis(200);

/// Who to tell about progress on a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgressRoute {
    pub run_id: Option<String>,
    pub step_id: Option<String>,
    pub request: String,
}

/// One routed progress token: its caller, the beat each progress bumps once its event
/// is out (the call's timeout starts again on it: the beat counts the progress
/// handled), the progress the transport has received on it, and whether its request
/// has finished.
#[derive(Debug)]
struct Routed {
    route: ProgressRoute,
    beat: watch::Sender<u64>,
    received: u64,
    finished: bool,
}

#[derive(Debug, Default)]
struct Routes {
    live: HashMap<ProgressToken, Routed>,
    /// Finished tokens, oldest first, with when they finished.
    finished: VecDeque<(Instant, ProgressToken)>,
}

/// Progress tokens of calls in flight (or finished within [`LATE_PROGRESS`]) → their
/// callers.
#[derive(Debug, Default)]
pub struct ProgressRoutes(Mutex<Routes>);

impl ProgressRoutes {
    /// Routes `token` to `route`; the receiver sees each progress on it. Tokens
    /// finished longer than [`LATE_PROGRESS`] ago are forgotten here, so no timer runs
    /// per request.
    pub fn insert(&self, token: &ProgressToken, route: ProgressRoute) -> watch::Receiver<u64> {
        self.insert_at(token, route, Instant::now())
    }

    fn insert_at(
        &self,
        token: &ProgressToken,
        route: ProgressRoute,
        now: Instant,
    ) -> watch::Receiver<u64> {
        let (beat, beats) = watch::channel(0);
        let mut routes = self.lock();
        while let Some((at, _)) = routes.finished.front() {
            if now.saturating_duration_since(*at) < LATE_PROGRESS {
                break;
            }
            if let Some((_, old)) = routes.finished.pop_front() {
                routes.live.remove(&old);
            }
        }
        routes.live.insert(
            token.clone(),
            Routed {
                route,
                beat,
                received: 0,
                finished: false,
            },
        );
        beats
    }

    /// `token`'s request has finished: its late progress still routes for a while.
    pub fn finish(&self, token: &ProgressToken) {
        self.finish_at(token, Instant::now());
    }

    fn finish_at(&self, token: &ProgressToken, now: Instant) {
        let mut guard = self.lock();
        let routes = &mut *guard;
        if let Some(routed) = routes.live.get_mut(token)
            && !routed.finished
        {
            routed.finished = true;
            routes.finished.push_back((now, token.clone()));
        }
    }

    /// The transport has received a progress notification on `token` (before rmcp
    /// hands it to a task of its own, and so before the answer that follows it).
    pub fn received(&self, token: &ProgressToken) {
        if let Some(routed) = self.lock().live.get_mut(token) {
            routed.received += 1;
        }
    }

    /// Where progress on `token` goes.
    pub(super) fn route(&self, token: &ProgressToken) -> Option<ProgressRoute> {
        self.lock().live.get(token).map(|r| r.route.clone())
    }

    /// One progress on `token` has been handled (its event is out): a beat.
    pub(super) fn handled(&self, token: &ProgressToken) {
        if let Some(routed) = self.lock().live.get(token) {
            routed.beat.send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Waits until every progress the transport received on `token` has been handled,
    /// for at most [`SETTLE`]: rmcp handles each notification in a task of its own,
    /// so a request's answer can arrive before the progress sent ahead of it is out.
    /// Nothing to wait for (the usual case) costs one look.
    pub async fn settled(&self, token: &ProgressToken) {
        let (mut beats, received) = {
            let routes = self.lock();
            let Some(routed) = routes.live.get(token) else {
                return;
            };
            if *routed.beat.borrow() >= routed.received {
                return;
            }
            (routed.beat.subscribe(), routed.received)
        };
        let handled = beats.wait_for(|n| *n >= received);
        if tokio::time::timeout(SETTLE, handled).await.is_err() {
            tracing::debug!("progress on {token:?} not handled within {SETTLE:?}");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().live.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn token(n: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(n))
    }

    fn route(name: &str) -> ProgressRoute {
        ProgressRoute {
            run_id: None,
            step_id: None,
            request: name.into(),
        }
    }

    #[test]
    fn progress_routes_to_its_call_and_beats_once_handled() {
        let routes = ProgressRoutes::default();
        let beats = routes.insert(&token(1), route("echo"));
        assert_eq!(routes.route(&token(1)), Some(route("echo")));
        assert_eq!(*beats.borrow(), 0, "routed, not yet handled");
        routes.handled(&token(1));
        assert_eq!(*beats.borrow(), 1);
        assert_eq!(routes.route(&token(2)), None);
    }

    #[test]
    fn a_second_finish_is_not_queued_again() {
        let routes = ProgressRoutes::default();
        let _beats = routes.insert(&token(1), route("echo"));
        routes.finish(&token(1));
        routes.finish(&token(1));
        assert_eq!(routes.lock().finished.len(), 1);
    }

    /// An answer waits for the progress received ahead of it to be handled, and
    /// only then; with none outstanding it does not wait at all.
    #[tokio::test]
    async fn settled_waits_for_the_progress_received_before_the_answer() {
        use futures::FutureExt as _;
        use std::sync::Arc;
        let routes = Arc::new(ProgressRoutes::default());
        let mut beats = routes.insert(&token(1), route("1"));
        assert!(
            routes.settled(&token(1)).now_or_never().is_some(),
            "none received"
        );
        routes.received(&token(1));
        routes.received(&token(1));
        routes.received(&token(9)); // not routed: not counted
        routes.handled(&token(1));
        let waiting = {
            let routes = Arc::clone(&routes);
            tokio::spawn(async move { routes.settled(&token(1)).await })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "one of two handled");
        routes.handled(&token(1));
        waiting.await.unwrap();
        assert_eq!(
            *beats.borrow_and_update(),
            2,
            "each handled progress is a beat"
        );
        assert!(routes.settled(&token(1)).now_or_never().is_some());
    }

    #[test]
    fn a_finished_token_routes_late_progress_until_it_ages_out() {
        let routes = ProgressRoutes::default();
        let t0 = Instant::now();
        let _beats = routes.insert_at(&token(1), route("first"), t0);
        routes.finish_at(&token(1), t0);
        // A call within the window: the first token's late progress still routes.
        let _beats = routes.insert_at(&token(2), route("second"), t0 + LATE_PROGRESS / 2);
        assert_eq!(routes.route(&token(1)), Some(route("first")));
        // A call after it: the first token is forgotten, the unfinished one kept.
        let _beats = routes.insert_at(&token(3), route("third"), t0 + LATE_PROGRESS);
        assert_eq!(routes.route(&token(1)), None);
        assert_eq!(routes.route(&token(2)), Some(route("second")));
        assert_eq!(routes.len(), 2);
    }

    #[test]
    fn many_quick_calls_keep_only_the_window() {
        let routes = ProgressRoutes::default();
        let t0 = Instant::now();
        let step = Duration::from_millis(1);
        for n in 0..5_000_u32 {
            let at = t0 + step * n;
            let _beats = routes.insert_at(&token(i64::from(n)), route("echo"), at);
            routes.finish_at(&token(i64::from(n)), at);
        }
        // 2 s of 1 ms calls: the last 2,000 (and the newest) are still routed.
        assert_eq!(routes.len(), 2_000);
        assert_eq!(routes.lock().finished.len(), 2_000);
    }
}
