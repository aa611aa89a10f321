"""One module per console view. Each holds a mixin of ConsoleApp (tui/app.py) with that view's
handlers and rendering; layout, bindings and the reactives stay in app.py. Message handlers here
use Textual's naming convention (`on_vertex_batch`), which works through the mixin's MRO."""
