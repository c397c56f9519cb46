//! The delivery loop. A waker turns NOTIFY announcements (which carry the new delivery
//! ids) and poll ticks into work for the claimer; the claimer leases deliveries as slots
//! free up (announced ids by key, otherwise a fair search), each delivery runs as its own task,
//! and a recorder writes finished outcomes in batches. No claim waits for a batch to
//! finish, and no endpoint holds more than `per_endpoint` of the worker's slots.
//! A crash loses nothing: unrecorded deliveries keep their lease until it expires, then any
//! worker claims them again (duplicates are bounded by what was in flight).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stablepay_domain::ports::{
    ClaimRequest, ClaimSource, ClaimedDelivery, Clock, DeliveryOutcome, DeliveryQueue,
    WebhookTransport,
};
use stablepay_domain::rules::delivery::DeliveryPolicy;
use stablepay_domain::services::deliver_event;
use stablepay_domain::{DeliveryStatus, EventId, WebhookEndpointId};
use tokio::sync::{mpsc, Notify, OwnedSemaphorePermit, Semaphore};

pub struct DeliveryLoop {
    pub queue: Arc<dyn DeliveryQueue>,
    pub transport: Arc<dyn WebhookTransport>,
    pub clock: Arc<dyn Clock>,
    pub policy: DeliveryPolicy,
    /// Slot groups per process (the process has `lanes × concurrency` slots; one claimer
    /// fills them all, since claims must be serialised to honour the per-endpoint cap).
    pub lanes: usize,
    /// Deliveries leased per claim at most.
    pub batch_size: u32,
    /// Requests in flight per lane.
    pub concurrency: usize,
    /// Requests one endpoint may have in flight in this process.
    pub per_endpoint: u32,
    pub lease: Duration,
    pub poll_interval: Duration,
    /// How often the worker vacuums the queue table itself.
    pub tidy_interval: Duration,
}

/// How often the queue's backlog is sampled for the metrics.
const BACKLOG_SAMPLE: Duration = Duration::from_secs(5);
/// Announced ids held for the claimer; beyond this it searches instead.
const ANNOUNCED_MAX: usize = 10_000;
/// The soonest a burst of new deliveries tidies the queue again.
const BURST_TIDY: Duration = Duration::from_secs(1);
/// Outcomes recorded per statement at most.
const RECORD_BATCH: usize = 500;

/// What the waker, the claimer and the delivery tasks share.
struct Shared {
    announced: Mutex<VecDeque<EventId>>,
    /// Work may be waiting that no announcement named.
    search: AtomicBool,
    /// Requests in flight per endpoint, and the endpoints whose last claim used all the
    /// room offered (work may be waiting for them). One lock: a claim's counts and its
    /// verdicts change together.
    endpoints: Mutex<Endpoints>,
    wake: Notify,
    slots: Arc<Semaphore>,
    /// A burst was announced: tidy soon.
    burst: AtomicBool,
    /// Wakes the housekeeper early (a burst, or stopping).
    housekeeping: Notify,
}

#[derive(Default)]
struct Endpoints {
    in_flight: HashMap<WebhookEndpointId, u32>,
    capped: HashSet<WebhookEndpointId>,
}

impl Shared {
    fn endpoints(&self) -> std::sync::MutexGuard<'_, Endpoints> {
        self.endpoints.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn announce(&self, ids: Vec<EventId>) {
        let mut queue = self.announced.lock().unwrap_or_else(|p| p.into_inner());
        for id in ids {
            if queue.len() >= ANNOUNCED_MAX {
                // Dropped names are found by the search.
                self.search.store(true, Ordering::Relaxed);
                break;
            }
            queue.push_back(id);
        }
    }

    fn take_announced(&self, n: usize) -> Vec<EventId> {
        let mut queue = self.announced.lock().unwrap_or_else(|p| p.into_inner());
        let n = n.min(queue.len());
        queue.drain(..n).collect()
    }

    /// Endpoints with requests in flight here, and how many more each may take. A search
    /// gives a busy endpoint new work only once a quarter of its slots are free, so work
    /// for a saturated endpoint is claimed in chunks rather than one row per completion.
    fn busy(&self, per_endpoint: u32, searching: bool) -> Vec<(WebhookEndpointId, u32)> {
        self.endpoints()
            .in_flight
            .iter()
            .map(|(e, n)| {
                let room = per_endpoint.saturating_sub(*n);
                let room = if searching && room < refill_at(per_endpoint) {
                    0
                } else {
                    room
                };
                (*e, room)
            })
            .collect()
    }

    /// Counts the claimed deliveries in flight and remembers which endpoints used all the
    /// room the claim offered them (work may be waiting). Returns whether one of them
    /// still has room for a refill: its deliveries finished while the claim ran, and then
    /// no completion is left to ask for more.
    fn note_claim(
        &self,
        offered: &[(WebhookEndpointId, u32)],
        per_endpoint: u32,
        claimed: &[ClaimedDelivery],
    ) -> bool {
        let mut counts: HashMap<WebhookEndpointId, u32> = HashMap::new();
        for d in claimed {
            *counts.entry(d.endpoint).or_default() += 1;
        }
        let full: Vec<WebhookEndpointId> = offered
            .iter()
            .filter(|(e, room)| counts.get(e).copied().unwrap_or(0) >= *room)
            .map(|(e, _)| *e)
            .chain(counts.iter().filter_map(|(e, n)| {
                (!offered.iter().any(|(o, _)| o == e) && *n >= per_endpoint).then_some(*e)
            }))
            .collect();
        let mut endpoints = self.endpoints();
        for (endpoint, n) in &counts {
            *endpoints.in_flight.entry(*endpoint).or_default() += n;
        }
        let mut search_now = false;
        for endpoint in full {
            let n = endpoints.in_flight.get(&endpoint).copied().unwrap_or(0);
            if per_endpoint.saturating_sub(n) >= refill_at(per_endpoint) {
                search_now = true;
            } else {
                endpoints.capped.insert(endpoint);
            }
        }
        search_now
    }

    /// Returns whether the endpoint may have work waiting and now has room for a refill.
    fn finished(&self, endpoint: WebhookEndpointId, per_endpoint: u32) -> bool {
        let mut endpoints = self.endpoints();
        let Some(n) = endpoints.in_flight.get_mut(&endpoint) else {
            return false;
        };
        *n -= 1;
        let room = per_endpoint.saturating_sub(*n);
        if *n == 0 {
            endpoints.in_flight.remove(&endpoint);
        }
        room >= refill_at(per_endpoint) && endpoints.capped.remove(&endpoint)
    }
}

/// Free slots at which a busy endpoint is refilled by a search.
fn refill_at(per_endpoint: u32) -> u32 {
    (per_endpoint / 4).max(1)
}

impl DeliveryLoop {
    /// Runs until `stop` is set, then lets every delivery in flight finish and records it.
    pub async fn run(&self, stop: Arc<AtomicBool>) {
        let slots = self.lanes.max(1) * self.concurrency.max(1);
        let shared = Arc::new(Shared {
            announced: Mutex::default(),
            search: AtomicBool::new(true),
            endpoints: Mutex::default(),
            wake: Notify::new(),
            slots: Arc::new(Semaphore::new(slots)),
            burst: AtomicBool::new(false),
            housekeeping: Notify::new(),
        });
        let (outcomes, recorded) = mpsc::unbounded_channel();
        let recorder = self.recorder(recorded);
        let claimer = async {
            self.claimer(&stop, &shared, &outcomes).await;
            // Every slot back means every delivery task has sent its outcome.
            let _all = shared.slots.acquire_many(slots as u32).await;
            drop(outcomes);
        };
        futures_util::future::join4(
            self.waker(&stop, &shared),
            self.housekeeper(&stop, &shared),
            claimer,
            recorder,
        )
        .await;
    }

    /// Turns announcements and poll ticks into work.
    async fn waker(&self, stop: &AtomicBool, shared: &Shared) {
        let poll_ms = u64::try_from(self.poll_interval.as_millis()).unwrap_or(1000);
        while !stop.load(Ordering::Relaxed) {
            let wakeup = self.queue.wait_for_work(poll_ms).await;
            if wakeup.search {
                shared.search.store(true, Ordering::Relaxed);
            }
            if wakeup.burst {
                shared.burst.store(true, Ordering::Relaxed);
                shared.housekeeping.notify_one();
            }
            shared.announce(wakeup.announced);
            shared.wake.notify_waiters();
        }
        shared.wake.notify_waiters();
        shared.housekeeping.notify_one();
    }

    /// Samples the backlog for the metrics and tidies the queue: every `tidy_interval`, and
    /// within `BURST_TIDY` of a burst. Beside the waker, so announcements are read while a
    /// tidy runs.
    async fn housekeeper(&self, stop: &AtomicBool, shared: &Shared) {
        let mut sampled = Instant::now() - BACKLOG_SAMPLE;
        let mut tidied = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            if sampled.elapsed() >= BACKLOG_SAMPLE {
                sampled = Instant::now();
                self.sample_backlog().await;
            }
            let every = if shared.burst.load(Ordering::Relaxed) {
                BURST_TIDY.min(self.tidy_interval)
            } else {
                self.tidy_interval
            };
            if tidied.elapsed() >= every {
                tidied = Instant::now();
                shared.burst.store(false, Ordering::Relaxed);
                if let Err(e) = self.queue.tidy().await {
                    tracing::debug!(error = %e, "vacuuming the delivery queue failed");
                }
                continue;
            }
            let next = every
                .saturating_sub(tidied.elapsed())
                .min(BACKLOG_SAMPLE.saturating_sub(sampled.elapsed()));
            let _ = tokio::time::timeout(next, shared.housekeeping.notified()).await;
        }
    }

    /// Queue depth and the age of the oldest due delivery, for operators.
    async fn sample_backlog(&self) {
        match self.queue.backlog().await {
            Ok(b) => {
                metrics::gauge!("stablepay_webhook_queue_due").set(b.due as f64);
                metrics::gauge!("stablepay_webhook_queue_oldest_due_age_seconds")
                    .set(b.oldest_due_age_secs);
            }
            Err(e) => tracing::debug!(error = %e, "sampling the delivery backlog failed"),
        }
    }

    /// Leases work for free slots and starts a task per delivery.
    async fn claimer(
        &self,
        stop: &AtomicBool,
        shared: &Arc<Shared>,
        outcomes: &mpsc::UnboundedSender<DeliveryOutcome>,
    ) {
        let lease_secs = i64::try_from(self.lease.as_secs()).unwrap_or(30);
        let mut last_announced = false;
        while !stop.load(Ordering::Relaxed) {
            // Register for the wake-up before looking for work, so an announcement that
            // lands between an empty claim and the wait is not lost.
            let woken = shared.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let mut permits = match shared.slots.clone().acquire_owned().await {
                Ok(p) => vec![p],
                Err(_) => return,
            };
            while permits.len() < self.batch_size.max(1) as usize {
                match shared.slots.clone().try_acquire_owned() {
                    Ok(p) => permits.push(p),
                    Err(_) => break,
                }
            }
            if stop.load(Ordering::Relaxed) {
                break;
            }
            // A pending search goes first after an announced claim, so a steady stream of
            // announcements never starves retries, overflow or refills.
            let search_first = last_announced && shared.search.swap(false, Ordering::Relaxed);
            let announced = if search_first {
                Vec::new()
            } else {
                shared.take_announced(permits.len())
            };
            let source = if search_first {
                ClaimSource::Due
            } else if !announced.is_empty() {
                ClaimSource::Announced(announced)
            } else if shared.search.swap(false, Ordering::Relaxed) {
                ClaimSource::Due
            } else {
                drop(permits);
                last_announced = false;
                let _ = tokio::time::timeout(self.poll_interval, woken).await;
                continue;
            };
            last_announced = matches!(source, ClaimSource::Announced(_));
            let searching = matches!(source, ClaimSource::Due);
            let request = ClaimRequest {
                source,
                limit: permits.len() as u32,
                lease_secs,
                per_endpoint: self.per_endpoint.max(1),
                busy: shared.busy(self.per_endpoint.max(1), searching),
            };
            let claimed = match self.queue.claim(&request).await {
                Ok(claimed) => claimed,
                Err(e) => {
                    tracing::warn!(error = %e, "claiming deliveries failed; retrying");
                    // Whatever was asked for is still in the queue: search for it.
                    shared.search.store(true, Ordering::Relaxed);
                    drop(permits);
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            tracing::debug!(
                searching,
                limit = request.limit,
                claimed = claimed.len(),
                "claimed deliveries"
            );
            let refill_now = shared.note_claim(&request.busy, request.per_endpoint, &claimed);
            if refill_now || (searching && claimed.len() == request.limit as usize) {
                // A full search suggests more is waiting.
                shared.search.store(true, Ordering::Relaxed);
            }
            for delivery in claimed {
                let Some(permit) = permits.pop() else { break };
                self.start(delivery, permit, shared, outcomes);
            }
        }
    }

    /// Attempts one delivery on its own task; its slot frees when its outcome is queued.
    fn start(
        &self,
        delivery: ClaimedDelivery,
        permit: OwnedSemaphorePermit,
        shared: &Arc<Shared>,
        outcomes: &mpsc::UnboundedSender<DeliveryOutcome>,
    ) {
        let (transport, clock, policy) = (self.transport.clone(), self.clock.clone(), self.policy);
        let (shared, outcomes, per_endpoint) =
            (shared.clone(), outcomes.clone(), self.per_endpoint.max(1));
        tokio::spawn(async move {
            let outcome =
                deliver_event(&delivery, transport.as_ref(), clock.as_ref(), &policy).await;
            count(&outcome);
            let _ = outcomes.send(outcome);
            if shared.finished(delivery.endpoint, per_endpoint) {
                // The endpoint may have work it could not take: look for it now.
                shared.search.store(true, Ordering::Relaxed);
                shared.wake.notify_waiters();
            }
            drop(permit);
        });
    }

    /// Records outcomes as they arrive, many per statement, until every sender is gone.
    async fn recorder(&self, mut recorded: mpsc::UnboundedReceiver<DeliveryOutcome>) {
        let health = self.policy.health_rule();
        let mut batch = Vec::with_capacity(RECORD_BATCH);
        while recorded.recv_many(&mut batch, RECORD_BATCH).await > 0 {
            for attempt in 0..5u64 {
                match self.queue.record_outcomes(&batch, &health).await {
                    Ok(()) => break,
                    Err(e) => {
                        // Unrecorded outcomes are re-attempted after the lease: at-least-once.
                        tracing::warn!(error = %e, attempt, "recording outcomes failed");
                        tokio::time::sleep(Duration::from_millis(200 * (attempt + 1))).await;
                    }
                }
            }
            batch.clear();
        }
    }
}

fn count(outcome: &DeliveryOutcome) {
    let kind = match (outcome.status, outcome.response_status) {
        (DeliveryStatus::Succeeded, _) => "succeeded",
        (DeliveryStatus::Failed, _) => "failed",
        (_, Some(_)) => "retrying_http_error",
        (_, None) => "retrying_network_error",
    };
    metrics::counter!("stablepay_webhook_deliveries_total", "outcome" => kind).increment(1);
}
