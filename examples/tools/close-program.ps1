<#
.SYNOPSIS
	Closes a program's processes 

id: close-program
name: Close Program
description: Finds and gracefully closes a running application's main window and process.
category: ProcessManagement
risk_level: low
side_effects: [process]
requires_admin: false
parameters:
  - name: ProgramName
    type: string
    description: The process name of the application to close (e.g., "chrome", "notepad").
    required: true
  - name: FullProgramName
    type: string
    description: The user-facing full name of the application (e.g., "Google Chrome"). Used for descriptive output.
    required: false
  - name: ProgramAliasName
    type: string
    description: An alternative process name for the application.
    required: false
examples:
  - "close chrome"
  - "shut down notepad plus plus"
  - "terminate spotify"
#>

param([string]$FullProgramName = "", [string]$ProgramName = "", [string]$ProgramAliasName = "")

# The header above is seed 000's, as written there; cogtools passes the arguments as named
# parameters (-ProgramName chrome) and the whole JSON on stdin.
$names = @($ProgramName, $ProgramAliasName) | Where-Object { $_ }
$display = if ($FullProgramName) { $FullProgramName } else { $ProgramName }
$running = Get-Process -Name $names -ErrorAction SilentlyContinue
if (-not $running) {
    Write-Output "$display is not running."
    exit 0
}
foreach ($process in $running) {
    if ($process.MainWindowHandle -ne 0) { [void]$process.CloseMainWindow() }
}
Start-Sleep -Seconds 2
$left = Get-Process -Name $names -ErrorAction SilentlyContinue
if ($left) {
    $left | Stop-Process
    Write-Output "Closed $display ($($left.Count) process(es) had to be stopped)."
} else {
    Write-Output "Closed $display."
}
