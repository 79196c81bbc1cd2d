"""The lab: synthetic card scenes and training (``synth``, ``training``), the simulated table that films
bot games with known truth (``simulate``, ``render``, ``bots``, ``toy``, ``compare``) and the demo's feeds (``demo``).

The lab imports the product (engine, vision, tracker); the product never imports the lab.
"""
