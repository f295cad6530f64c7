//! Whole configurations: this worker starts and stops the ones it owns,
//! sends commands to its devices of a running one, and creates, copies
//! and deletes private configurations (which only it writes into).

use anyhow::{Context, Result};

use super::Worker;
use crate::{
    server::{Value, object},
    soak::model::Kind,
};

impl Worker {
    fn is_running(&self, net: &str) -> bool {
        self.shared
            .model()
            .nets
            .get(net)
            .is_some_and(|net| net.running)
    }

    pub(super) fn lifecycle_step(&mut self) -> Result<()> {
        let Some(net) = self.rng.pick(&self.lifecycle).cloned() else {
            return Ok(());
        };
        let path = format!("/nets/{net}");
        if self.is_running(&net) {
            let body = object([("action", Value::from("stop"))]);
            self.call("stop", "POST", &path, Some(&body), 200)?;
            self.running_devices.remove(&net);
            self.record(&net, |model| {
                model.running = false;
                Ok(())
            })
        } else {
            let enabled: Vec<String> = self
                .own(&net, Kind::Devices)
                .into_iter()
                .filter(|(_, device)| device.get("disabled") == Some(&Value::Bool(false)))
                .map(|(serial, _)| serial)
                .collect();
            let body = object([("action", Value::from("start"))]);
            self.call("start", "POST", &path, Some(&body), 200)?;
            self.running_devices.insert(net.clone(), enabled);
            self.record(&net, |model| {
                model.running = true;
                Ok(())
            })
        }
    }

    /// A command to one of this worker's devices of a running configuration.
    pub(super) fn command(&mut self) -> Result<()> {
        let running: Vec<(String, Vec<String>)> = self
            .running_devices
            .iter()
            .map(|(net, devices)| (net.clone(), devices.clone()))
            .collect();
        let Some((net, devices)) = self.rng.pick(&running).cloned() else {
            return Ok(());
        };
        let Some(serial) = self.rng.pick(&devices).cloned() else {
            return Ok(());
        };
        let action = match self.rng.below(4) {
            0 => object([("action", Value::from("get_device_attributes"))]),
            1 => object([("action", Value::from("clear_device_error"))]),
            2 => object([("action", Value::from("soft_reset"))]),
            _ => object([
                ("action", Value::from("set_led")),
                ("color", Value::from("green")),
                ("mode", Value::from("flash")),
                ("timeout", Value::from(5)),
            ]),
        };
        let path = format!("/nets/{net}/devices/{serial}/action");
        self.call("device command", "POST", &path, Some(&action), 200)?;
        Ok(())
    }

    pub(super) fn create_private(&mut self) -> Result<()> {
        let n = self.next();
        let name = format!("soak-w{}-{}", self.id, n);
        let body = object([
            ("name", Value::from(name.as_str())),
            ("instance", Value::from("sim")),
        ]);
        self.call("create net", "POST", "/nets", Some(&body), 201)?;
        let mut model = self.shared.model();
        let template = model.template.clone();
        model.nets.insert(name.clone(), template);
        drop(model);
        self.private.push(name.clone());
        self.lifecycle.push(name);
        Ok(())
    }

    pub(super) fn private_step(&mut self) -> Result<()> {
        match (self.private.len(), self.rng.below(3)) {
            (0, _) | (1, 0) => self.create_private(),
            (1 | 2, _) => self.copy_private(),
            _ => self.delete_private(),
        }
    }

    fn copy_private(&mut self) -> Result<()> {
        let Some(from) = self.rng.pick(&self.private).cloned() else {
            return Ok(());
        };
        let n = self.next();
        let name = format!("soak-w{}-{}", self.id, n);
        let body = object([
            ("action", Value::from("copy")),
            ("name", Value::from(name.as_str())),
        ]);
        self.call(
            "copy net",
            "POST",
            &format!("/nets/{from}"),
            Some(&body),
            200,
        )?;
        let mut model = self.shared.model();
        let mut copy = model
            .nets
            .get(&from)
            .cloned()
            .context("copied a net the model lacks")?;
        copy.running = false;
        model.nets.insert(name.clone(), copy);
        drop(model);
        self.private.push(name.clone());
        self.lifecycle.push(name);
        Ok(())
    }

    fn delete_private(&mut self) -> Result<()> {
        let Some(name) = self.rng.pick(&self.private).cloned() else {
            return Ok(());
        };
        if self.rng.chance(50) {
            self.call("delete net", "DELETE", &format!("/nets/{name}"), None, 204)?;
        } else {
            let body = object([("action", Value::from("delete"))]);
            self.call(
                "delete net",
                "POST",
                &format!("/nets/{name}"),
                Some(&body),
                200,
            )?;
        }
        self.shared.model().nets.remove(&name);
        self.private.retain(|net| *net != name);
        self.lifecycle.retain(|net| *net != name);
        self.running_devices.remove(&name);
        Ok(())
    }
}
