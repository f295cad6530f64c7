//! How well a site locates (decisions §12): the reference tags' accuracy
//! and the anchors' survey while it runs, and the coverage its anchors'
//! geometry predicts, running or not.

use netcfg_model::{
    ConfigName, SurveyReport, TagAccuracy,
    locate::{Coverage, CoverageRequest, Geometry, Measure, Point, coverage},
};

use crate::{Service, ServiceError};

impl Service {
    /// A conflict unless the configuration runs: for reports only a
    /// running network can give.
    pub(crate) async fn require_running(
        &self,
        name: &ConfigName,
        what: &str,
    ) -> Result<(), ServiceError> {
        self.require_net(name).await?;
        if self.is_running(name) {
            Ok(())
        } else {
            Err(ServiceError::Stopped(format!(
                "configuration `{name}` is not running: start it to {what}"
            )))
        }
    }

    /// The reference tags' accuracy since the start (409 when stopped).
    pub async fn accuracy(&self, name: &ConfigName) -> Result<Vec<TagAccuracy>, ServiceError> {
        self.require_running(name, "measure its accuracy").await?;
        Ok(self.engine().accuracy(name)?)
    }

    /// Makes the anchors range each other and judges them (409 when
    /// stopped), and keeps the report beside the saved-state file, so that
    /// it survives a restart of the server (decisions §20).
    pub async fn survey(&self, name: &ConfigName) -> Result<SurveyReport, ServiceError> {
        self.require_running(name, "survey its anchors").await?;
        let report = self.engine().survey(name).await?;
        let (net, kept) = (name.clone(), report.clone());
        self.blocking(move |store| store.save_survey(&net, &kept))
            .await?;
        Ok(report)
    }

    /// The last survey, if any: the running network's, else the one kept.
    pub async fn last_survey(
        &self,
        name: &ConfigName,
    ) -> Result<Option<SurveyReport>, ServiceError> {
        self.require_net(name).await?;
        if let Some(report) = self.engine().last_survey(name) {
            return Ok(Some(report));
        }
        let net = name.clone();
        self.blocking(move |store| store.survey(&net)).await
    }

    /// The error the anchors' configured geometry predicts over a grid
    /// (the Cramér–Rao bound), computed on a blocking thread.
    pub async fn coverage(
        &self,
        name: &ConfigName,
        request: CoverageRequest,
    ) -> Result<Coverage, ServiceError> {
        let computed = self
            .read(name, move |net| {
                let mode = net.network_mode()?;
                let anchors: Vec<Point> = net
                    .devices()?
                    .iter()
                    .filter(|device| !device.disabled)
                    .filter_map(|device| device.interfaces.first())
                    .filter(|interface| interface.role_id.needs_position())
                    .filter_map(|interface| interface.position())
                    .map(|position| position.map(f64::from))
                    .collect();
                let geometry = Geometry::of_anchors(Measure::from(mode), &anchors);
                Ok(coverage(&geometry, &anchors, &request))
            })
            .await?;
        computed.map_err(|error| ServiceError::Parameters(error.problems()))
    }
}
