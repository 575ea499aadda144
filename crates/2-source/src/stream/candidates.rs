//! Failover: when the source is lost, the first candidate server that has
//! every transaction read so far becomes the source, resumed by GTID.

use std::time::Instant;

use crate::conn::{Conn, ConnectOptions};
use crate::error::Result;
use crate::failover::{self, FailoverPolicy};
use crate::position::{GtidState, StartPosition};
use crate::replica::{self, CheckOptions};

use super::{BinlogStream, ResumeBy};

impl BinlogStream {
    /// When the source has been lost for longer than the failover policy
    /// allows: the first candidate that has every transaction read so far
    /// becomes the source, resumed by GTID. True when one did; candidates
    /// that are unreachable or behind are logged and tried again next time.
    pub(super) async fn fail_over(&mut self) -> bool {
        let Some(policy) = self.config.failover.clone() else {
            return false;
        };
        let Some(since) = self.lost_since else {
            return false;
        };
        if !self.started || policy.candidates.is_empty() || since.elapsed() < policy.after {
            return false;
        }
        let Some(ours) = self.st.committed.at.gtid.clone() else {
            tracing::warn!(
                source = %self.st.addr,
                resume = %self.st.committed,
                "source lost, but no GTID state is known to resume on another server; reconnecting to it only"
            );
            return false;
        };
        match self.ready_candidate(&policy, &ours).await {
            Some(i) => {
                self.switch_to_candidate(i, &ours, since);
                true
            }
            None => false,
        }
    }

    /// The first open failed: with failover candidates and a GTID start,
    /// switches to the first candidate that has that state and opens it.
    pub(super) async fn start_on_candidate(&mut self) -> bool {
        let StartPosition::Gtid(ours) = self.config.start.clone() else {
            return false;
        };
        let Some(policy) = self.config.failover.clone() else {
            return false;
        };
        let since = Instant::now();
        let Some(i) = self.ready_candidate(&policy, &ours).await else {
            return false;
        };
        self.switch_to_candidate(i, &ours, since);
        match self.open().await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(candidate = %self.st.addr, error = %e, "cannot start on the failover candidate");
                false
            }
        }
    }

    /// The index of the first candidate (other than the current source)
    /// that may take over from `ours`; each one passed over is logged.
    async fn ready_candidate(&self, policy: &FailoverPolicy, ours: &GtidState) -> Option<usize> {
        let current = self.config.connect.addr();
        for (i, candidate) in policy.candidates.iter().enumerate() {
            let addr = candidate.addr();
            if addr == current {
                continue;
            }
            match self
                .probe_candidate(candidate, ours, policy.skip_read_only)
                .await
            {
                Ok(None) => return Some(i),
                Ok(Some(reason)) => tracing::warn!(
                    source = %self.st.addr,
                    candidate = %addr,
                    gtid = %ours,
                    reason = %reason,
                    "failover candidate not taken (a replica not promoted, or one lacking transactions consumers already saw); trying again later"
                ),
                Err(e) => tracing::warn!(
                    source = %self.st.addr,
                    candidate = %addr,
                    error = %e,
                    "failover candidate unreachable"
                ),
            }
        }
        None
    }

    async fn probe_candidate(
        &self,
        candidate: &ConnectOptions,
        ours: &GtidState,
        skip_read_only: bool,
    ) -> Result<Option<String>> {
        let mut conn = Conn::connect(candidate).await?;
        let info = replica::check_server(
            &mut conn,
            CheckOptions {
                row_images: self.config.row_images.clone(),
                names_from_schema: true,
            },
        )
        .await?;
        failover::check_candidate(&mut conn, &info, ours, skip_read_only).await
    }

    fn switch_to_candidate(&mut self, index: usize, ours: &GtidState, since: Instant) {
        let Some(policy) = self.config.failover.as_mut() else {
            return;
        };
        if index >= policy.candidates.len() {
            return;
        }
        // The old source becomes a candidate: it may come back as a replica
        // of the new one.
        let chosen = policy.candidates.remove(index);
        let old = std::mem::replace(&mut self.config.connect, chosen);
        policy.candidates.push(old);
        let from = std::mem::replace(&mut self.st.addr, self.config.connect.addr());
        self.resume_by = ResumeBy::Gtid;
        self.st.gtid = Some(ours.clone());
        self.attempts = 0;
        self.failovers += 1;
        tracing::info!(
            from = %from,
            to = %self.st.addr,
            gtid = %ours,
            lost_ms = since.elapsed().as_millis() as u64,
            "source failover: resuming on the new source by GTID"
        );
    }
}
