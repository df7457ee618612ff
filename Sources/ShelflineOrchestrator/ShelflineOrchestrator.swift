/// Orchestrator: runs the stage executables in order, restarting from the first incomplete stage.
public enum ShelflineOrchestrator {}
