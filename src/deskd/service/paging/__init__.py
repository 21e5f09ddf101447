"""Pages to people: channel configuration, the pager that sends and settles pages, silences and
quiet hours, the tick ping, and the help requests agents raise."""
