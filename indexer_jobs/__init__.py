"""PySpark jobs: index builds and batch profiling."""
