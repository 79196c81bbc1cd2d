"""What ``ddz-table demo`` plays into the store: bots (``feeder``) or a rendered table read by the real pipeline
(``camera_feed``), with the demo's referee correcting misreads (``corrector``)."""
