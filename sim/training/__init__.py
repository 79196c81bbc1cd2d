"""Training the finder and the reader (ultralytics and torch: the ``train`` extra), exporting them, scoring them."""
