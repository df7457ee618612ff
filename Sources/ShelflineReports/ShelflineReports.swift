/// Reports: the report files one stage writes and others read, and the pipeline's stage list.
///
/// Their readers must not link the stage that writes them (the orchestrator links no stage
/// library), and ShelflineCore holds nothing stage-specific. A report only one stage reads stays in
/// its library. This module must not read or write files, or depend on anything but ShelflineCore.
public enum ShelflineReports {}
