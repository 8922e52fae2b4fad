"""Calibration: parse engine start-up logs and compare them with kvplan's predictions."""
