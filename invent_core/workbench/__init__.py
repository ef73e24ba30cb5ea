"""What the dashboard and the CLI share around a run: history, estimates before Run, progress and Cancel, re-asking edited perturbations."""
